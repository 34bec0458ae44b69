// `fathom calibrate INPUT... -o PROFILE`: fits the hardware profile to one system's
// microbenchmarks (calibrate/profile/calibration.hpp), prints measured against fitted per file,
// the held-out error and the predicted busbw of larger clusters, and writes the profile a
// scenario reads with `calibration: FILE`. docs/calibration.md describes the command and the
// report.
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "report/calibration/calibration_run.hpp"
#include "report/output_file.hpp"
#include "scenarios/units.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct CalibrateOptions {
  report::CalibrationRequest request;
  std::string max_memory;  // --max-memory
  std::string min_bytes;   // --min-bytes
  std::string output;      // the profile
  std::string points;      // every point as CSV
};

void run_calibrate(CalibrateOptions o) {
  Outputs outputs{{"-o", o.output}, {"--points", o.points}};
  o.request.max_memory_bytes = parse_memory_limit(o.max_memory);
  if (!o.min_bytes.empty()) {
    try {
      o.request.min_bytes = scenario::parse_bytes(o.min_bytes, scenario::Sign::kNonNegative);
    } catch (const scenario::UnitError& e) {
      throw std::invalid_argument("--min-bytes: expected " + e.expected() + ", found \"" + o.min_bytes + "\"");
    }
  }
  const report::CalibrationRun run = report::run_calibration(o.request);
  note("system: " + run.system.described);
  // With an output on standard output ("-") the report moves to standard error.
  const bool stdout_taken = report::is_stdout(o.output) || report::is_stdout(o.points);
  outputs.report("", stdout_taken, [&](std::FILE* out) { report::write_calibration_report(out, run); });
  if (!o.points.empty()) outputs.file(o.points, [&](std::ostream& to) { to << report::points_text(run); });
  outputs.file(o.output, [&](std::ostream& to) { to << report::profile_text(run); });
  outputs.commit();
  outputs.report("", stdout_taken, [&](std::FILE* out) {
    report::write_calibration_summary(out, run);
    std::fprintf(out, "wrote %s\n", o.output.c_str());
  });
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit the hardware profile to microbenchmark results (nccl-tests, GEMM, STREAM, fio, nvbandwidth)");
  cmd->add_option("inputs", options->request.inputs, "measurement files or folders of them")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("-o,--output", options->output, "the profile to write (YAML)")->required();
  cmd->add_option("--scenario", options->request.scenario,
                  "the measured system as a scenario (node, fabric, accelerator)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--node", options->request.node,
                  "the measured system as a catalog node (dgx-h100, ...), on fathom's default fabric; default: "
                  "guessed from the inputs' paths");
  cmd->add_option("--system", options->request.system,
                  "a name for the system in the profile (default: the first input's)");
  cmd->add_option("--exclude", options->request.exclude, "leave out files matching this glob (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--holdout", options->request.holdout, "keep this fraction of every file's points out of the fit")
      ->check(CLI::Range(0.0, 0.95));
  cmd->add_option("--holdout-files", options->request.holdout_files,
                  "keep files matching this glob out of the fit and report the error on them (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--points", options->points, "also write every point, measured and fitted, as CSV");
  cmd->add_option("--nodes", options->request.nodes, "nodes of nccl-tests files that do not say (default: 1)");
  cmd->add_option("--gpus-per-node", options->request.gpus_per_node,
                  "GPUs per node of nccl-tests files that do not say (default: the node's)");
  cmd->add_option("--op", options->request.op, "operation of nccl-tests files that do not say");
  cmd->add_option("--algo", options->request.algo, "force this algorithm on every nccl-tests file");
  cmd->add_option("--predict-nodes", options->request.predict_nodes,
                  "node counts to predict busbw for (default: 2 4 8 16 64)")
      ->delimiter(',');
  cmd->add_option("--tuner", options->request.tuner,
                  "who chooses each point's algorithm and protocol in the collective fit: thresholds (searched among "
                  "the measured sizes; default) or nccl (NCCL's cost model, no search)")
      ->check(CLI::IsMember({"thresholds", "nccl"}));
  cmd->add_option("--min-bytes", options->min_bytes,
                  "fit the collectives on sizes from this one (default 1MiB; docs/calibration.md)");
  add_max_memory_option(*cmd, options->max_memory);
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_calibrate(*options);
  });
}

}  // namespace fathom::cli
