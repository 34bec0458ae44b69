// `fathom validate --scenario SCENARIO LOG...`: fathom's simulated nccl-tests against real
// nccl-tests output. For every log (printed output or the CSV form, calibrate/parsers/) it
// reads the node count, GPUs per node, operation and forced algorithm (NCCL_ALGO), simulates
// the same sizes on the scenario's cluster and prints the relative error of busbw per size
// (in-place where the log has both placements). The last line sums up sizes of 1 MiB and more:
//   files=<n> points=<n> median_rel_error=<x> max_rel_error=<x>
// docs/calibration.md describes the command.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/measurement.hpp"
#include "cli/commands.hpp"
#include "cli/nccl_tests_sim.hpp"
#include "cli/scenario_run.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::cli {

namespace {

struct ValidateOptions {
  std::string scenario;
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

void run_validate(const ValidateOptions& o) {
  const scenario::Scenario s = scenario::load_scenario(o.scenario, o.overrides);
  coll::CollectiveTimer timer(s.cluster, s.collectives, s.seed);

  calib::LoadOptions load;
  load.nccl.op = o.op;
  load.nccl.nodes = o.nodes;
  load.nccl.gpus_per_node = o.gpus_per_node;
  std::vector<calib::Measurement> measurements;
  for (const auto& file : o.logs) measurements.push_back(calib::load_measurement(file, load));
  const std::size_t given = measurements.size();
  measurements = calib::drop_repeated(std::move(measurements));

  std::vector<double> errors;  // |relative error| of every size >= 1 MiB
  int files = 0;
  for (const auto& m : measurements) {
    const auto* log = std::get_if<calib::NcclTestsLog>(&m);
    const std::string& file = calib::file_of(m);
    if (log == nullptr) {
      throw std::invalid_argument(file + ": expected nccl-tests output, found " + std::string(calib::kind_of(m)));
    }
    calib::require_rows(*log);
    const int nodes = o.nodes > 0 ? o.nodes : log->nodes;
    const int gpus = o.gpus_per_node > 0 ? o.gpus_per_node : log->gpus_per_node;
    if (nodes < 1) throw std::invalid_argument(file + ": the node count is unknown: pass --nodes");
    if (gpus < 1) throw std::invalid_argument(file + ": the GPUs per node are unknown: pass --gpus-per-node");
    const std::string op_name = !o.op.empty() ? o.op : log->op;
    if (op_name.empty()) throw std::invalid_argument(file + ": the operation is unknown: pass --op");
    const NcclOp op = parse_nccl_op(op_name, file + ": op");
    const std::string algo_name = !o.algo.empty() ? o.algo : log->algo;
    const auto algo = parse_nccl_algo(algo_name, o.algo.empty() ? file + ": NCCL_ALGO" : "--algo");
    if (nodes > s.cluster.nodes || gpus > s.cluster.node.gpus) {
      throw std::invalid_argument(file + ": measured on " + std::to_string(nodes) + " node(s) x " +
                                  std::to_string(gpus) + " GPU(s), but the scenario has " +
                                  std::to_string(s.cluster.nodes) + " x " + std::to_string(s.cluster.node.gpus));
    }
    const auto ranks = nccl_group_ranks(timer.topology(), nodes, gpus);
    ++files;
    std::printf("# %s: %s on %d node(s) x %d GPU(s), algo %s\n", file.c_str(), op_name.c_str(), nodes, gpus,
                algo_name.empty() ? "auto" : algo_name.c_str());
    std::printf("#%13s %12s %12s %9s  %s\n", "size(B)", "measured", "fathom", "error", "algorithm");
    for (const auto& row : log->rows) {
      const double measured = calib::busbw(row);
      if (!(measured > 0) || row.bytes <= 0) continue;
      const NcclSize sim = simulate_nccl_size(timer, op, ranks, row.bytes, algo);
      const double error = (sim.busbw_gbps - measured) / measured;
      std::printf("%14lld %12.2f %12.2f %+8.1f%%  %s\n", static_cast<long long>(row.bytes), measured, sim.busbw_gbps,
                  100 * error, std::string(coll::to_string(sim.timing.algorithm)).c_str());
      if (row.bytes >= kSummaryFromBytes) errors.push_back(std::fabs(error));
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
  cmd->add_option("--scenario", options->scenario, "the cluster to simulate (a scenario file)")
      ->required()
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
  cmd->callback([options] { run_validate(*options); });
}

}  // namespace fathom::cli
