// `fathom validate [--scenario SCENARIO] [--profile PROFILE] LOG...`: fathom's simulated
// nccl-tests against real nccl-tests output (report/calibration/log_validation.hpp), on the
// scenario's cluster resized to each log's node count, or the profile's node on the default
// fabric, calibrated by the profile.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "report/calibration/log_validation.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct ValidateOptions {
  report::ValidationRequest request;
  std::string max_memory;  // --max-memory
  std::string output;      // -o: the tables
};

void run_validate(ValidateOptions o) {
  Outputs outputs{{"-o", o.output}};
  o.request.max_memory_bytes = parse_memory_limit(o.max_memory);
  const report::MeasuredSystem system = report::validation_system(o.request);
  note("system: " + system.described);
  const report::LogValidation v = report::validate_logs(system, o.request);
  outputs.report(o.output, false, [&](std::FILE* out) { report::write_log_validation(out, v); });
  outputs.commit();
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "compare fathom's simulated nccl-tests with real nccl-tests output (logs or their CSV form)");
  cmd->add_option("--scenario", options->request.scenario,
                  "the cluster to simulate (a scenario file); resized to the node count of each log")
      ->check(CLI::ExistingFile);
  cmd->add_option("--profile", options->request.profile,
                  "a calibrated profile (fathom calibrate) applied over the system; without --scenario, the "
                  "profile's node on the default fabric")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->request.overrides, "override a scenario key: --set cluster.nodes=4 (repeatable)")
      ->take_all();
  cmd->add_option("logs", options->request.logs, "nccl-tests output files (.log as printed, or the CSV form)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", options->output, "write the tables to this file instead of standard output");
  cmd->add_option("--nodes", options->request.nodes, "nodes the measurement ran on (default: read from the log)");
  cmd->add_option("--gpus-per-node", options->request.gpus_per_node, "GPUs per node (default: read from the log)");
  cmd->add_option("--op", options->request.op,
                  "all_reduce, all_gather, ... (default: from the log's binary or file name)");
  cmd->add_option("--algo", options->request.algo, "ring, tree, nvls, ... (default: NCCL_ALGO of the log, else auto)");
  add_max_memory_option(*cmd, options->max_memory);
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_validate(*options);
  });
}

}  // namespace fathom::cli
