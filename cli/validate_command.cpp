// `fathom validate [--scenario SCENARIO] [--profile PROFILE] LOG...`: fathom's simulated
// nccl-tests against real nccl-tests output. For every log (printed output or the CSV form,
// calibrate/parsers/) it reads the node count, GPUs per node, operation and forced algorithm
// (NCCL_ALGO), simulates the same sizes on the system (the scenario's cluster resized to the
// log's node count, or the profile's node on the default fabric, calibrated by the profile) and prints the relative
// error of busbw per size (in-place where the log has both placements). The last line sums up sizes of 1 MiB and more:
//   files=<n> points=<n> median_rel_error=<x> max_rel_error=<x>
// docs/calibration.md describes the command.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/fit/nccl_series.hpp"
#include "calibrate/measurement.hpp"
#include "cli/commands.hpp"
#include "cli/measured_system.hpp"
#include "cli/scenario_run.hpp"
#include "models/collectives/nccl_tests.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct ValidateOptions {
  std::string scenario;
  std::string profile;
  std::vector<std::string> overrides;
  std::vector<std::string> logs;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string op;
  std::string algo;
};

constexpr std::int64_t kSummaryFromBytes = std::int64_t{1} << 20;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// The system: the scenario's, else the profile's catalog node on the default fabric; with a
// profile, its accelerator and collectives sections applied over it.
MeasuredSystem validated_system(const ValidateOptions& o) {
  if (o.scenario.empty() && o.profile.empty()) {
    throw std::invalid_argument("--scenario or --profile: expected the system to simulate, found neither");
  }
  std::optional<scenario::CalibrationProfile> profile;
  if (!o.profile.empty()) profile = scenario::load_calibration_profile(o.profile);
  MeasuredSystem system;
  if (!o.scenario.empty()) {
    system = system_from_scenario(scenario::load_scenario(o.scenario, o.overrides));
  } else {
    if (profile->node.empty()) {
      throw std::invalid_argument(o.profile + ": the profile names no node (node:); pass --scenario");
    }
    system = system_from_node(profile->node);
  }
  if (profile) {
    system.accelerator =
        scenario::apply_profile_accelerator(*profile, system.accelerator, scenario::Location{o.profile, 0, 0});
    system.collectives = scenario::apply_profile_collectives(*profile, system.collectives);
    system.described += ", calibrated by " + o.profile;
  }
  return system;
}

void run_validate(const ValidateOptions& o) {
  const MeasuredSystem system = validated_system(o);
  const calib::ClusterForNodes cluster = cluster_for(system);

  calib::LoadOptions load;
  load.nccl.op = o.op;
  load.nccl.nodes = o.nodes;
  load.nccl.gpus_per_node = o.gpus_per_node;
  std::vector<calib::Measurement> measurements;
  for (const auto& file : o.logs) measurements.push_back(calib::load_measurement(file, load));
  const std::size_t given = measurements.size();
  measurements = calib::drop_repeated(std::move(measurements));

  calib::SeriesOptions series_options;
  series_options.op = o.op;
  series_options.algo = o.algo;
  series_options.nodes = o.nodes;
  series_options.gpus_per_node = o.gpus_per_node;
  std::vector<double> errors;  // |relative error| of every size >= 1 MiB
  int files = 0;
  for (const auto& m : measurements) {
    const auto* log = std::get_if<calib::NcclTestsLog>(&m);
    const std::string& file = calib::file_of(m);
    if (log == nullptr) {
      throw std::invalid_argument(file + ": expected nccl-tests output, found " + std::string(calib::kind_of(m)));
    }
    calib::BusbwSeries s = calib::busbw_series(*log, series_options);
    const topo::ClusterSpec spec = cluster(s.nodes);
    calib::apply_stated_algorithm(s, spec.node.nvls);
    if (s.gpus_per_node > spec.node.gpus) {
      throw std::invalid_argument(file + ": measured with " + std::to_string(s.gpus_per_node) +
                                  " GPU(s) per node, but the system's node has " + std::to_string(spec.node.gpus));
    }
    coll::CollectiveParams params = system.collectives;
    if (s.protocol) params.protocol = s.protocol;  // the log's NCCL_PROTO
    coll::CollectiveTimer timer(spec, params, system.seed);
    const auto ranks = coll::nccl_group_ranks(timer.topology(), s.nodes, s.gpus_per_node);
    ++files;
    std::printf("# %s: %s on %d node(s) x %d GPU(s), algo %s\n", file.c_str(), s.op_name.c_str(), s.nodes,
                s.gpus_per_node, s.algo_name.empty() ? "auto" : s.algo_name.c_str());
    for (const auto& a : s.assumed) std::printf("# note: assumed %s\n", a.c_str());
    std::printf("#%13s %12s %12s %9s  %s\n", "size(B)", "measured", "fathom", "error", "algorithm protocol");
    for (const auto& p : s.points) {
      const coll::NcclSize sim = coll::simulate_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm);
      const double error = (sim.busbw_gbps - p.busbw_gbps) / p.busbw_gbps;
      std::printf("%14lld %12.2f %12.2f %+8.1f%%  %s %s\n", static_cast<long long>(p.bytes), p.busbw_gbps,
                  sim.busbw_gbps, 100 * error, std::string(coll::to_string(sim.timing.algorithm)).c_str(),
                  std::string(coll::to_string(sim.timing.protocol)).c_str());
      if (p.bytes >= kSummaryFromBytes) errors.push_back(std::fabs(error));
    }
  }
  if (given > measurements.size()) {
    std::printf("# %zu file(s) repeated another's measurement (a .log and its .csv) and counted once\n",
                given - measurements.size());
  }
  const double worst = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  std::printf("files=%d points=%zu median_rel_error=%.4f max_rel_error=%.4f\n", files, errors.size(), median(errors),
              worst);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "compare fathom's simulated nccl-tests with real nccl-tests output (logs or their CSV form)");
  cmd->add_option("--scenario", options->scenario,
                  "the cluster to simulate (a scenario file); resized to the node count of each log")
      ->check(CLI::ExistingFile);
  cmd->add_option("--profile", options->profile,
                  "a calibrated profile (fathom calibrate) applied over the system; without --scenario, the "
                  "profile's node on the default fabric")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->overrides, "override a scenario key: --set cluster.nodes=4 (repeatable)")
      ->take_all();
  cmd->add_option("logs", options->logs, "nccl-tests output files (.log as printed, or the CSV form)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--nodes", options->nodes, "nodes the measurement ran on (default: read from the log)");
  cmd->add_option("--gpus-per-node", options->gpus_per_node, "GPUs per node (default: read from the log)");
  cmd->add_option("--op", options->op, "all_reduce, all_gather, ... (default: from the log's binary or file name)");
  cmd->add_option("--algo", options->algo, "ring, tree, nvls, ... (default: NCCL_ALGO of the log, else auto)");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_validate(*options);
  });
}

}  // namespace fathom::cli
