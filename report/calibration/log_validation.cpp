#include "report/calibration/log_validation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <variant>

#include "calibrate/fit/nccl_series.hpp"
#include "calibrate/measurement.hpp"
#include "models/collectives/nccl_tests.hpp"
#include "scenarios/calibration_profile.hpp"

namespace fathom::report {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

// The scenario's system, else the profile's catalog node on the default fabric; with a profile,
// its accelerator and collectives sections applied over it.
MeasuredSystem validation_system(const ValidationRequest& o) {
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
  system.max_memory_bytes = o.max_memory_bytes;
  if (profile) {
    system.accelerator =
        scenario::apply_profile_accelerator(*profile, system.accelerator, scenario::Location{o.profile, 0, 0});
    system.collectives = scenario::apply_profile_collectives(*profile, system.collectives);
    system.described += ", calibrated by " + o.profile;
  }
  return system;
}

LogValidation validate_logs(const MeasuredSystem& system, const ValidationRequest& o) {
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
  LogValidation v;
  v.repeated = given - measurements.size();
  std::vector<double> errors;  // |relative error| of every size >= 1 MiB
  // Every sweep: an nccl-tests file, or each group of an NCCL profile.
  std::vector<const calib::NcclTestsLog*> logs;
  for (const auto& m : measurements) {
    if (const auto* log = std::get_if<calib::NcclTestsLog>(&m)) {
      logs.push_back(log);
    } else if (const auto* profile = std::get_if<calib::CollectiveProfile>(&m)) {
      for (const auto& log : profile->logs) logs.push_back(&log);
    } else {
      throw std::invalid_argument(calib::file_of(m) + ": expected nccl-tests output or an NCCL profile, found " +
                                  std::string(calib::kind_of(m)));
    }
  }
  for (const calib::NcclTestsLog* log : logs) {
    const std::string& file = log->file;
    calib::BusbwSeries s = calib::busbw_series(*log, series_options);
    const topo::ClusterSpec spec = cluster(s.nodes);
    calib::apply_stated_algorithm(s, spec.node.nvls);
    if (s.gpus_per_node > spec.node.gpus) {
      throw std::invalid_argument(file + ": measured with " + std::to_string(s.gpus_per_node) +
                                  " GPU(s) per node, but the system's node has " + std::to_string(spec.node.gpus));
    }
    require_series_within_memory(system, s);
    coll::CollectiveParams params = system.collectives;
    if (s.protocol) params.protocol = s.protocol;  // the log's NCCL_PROTO
    coll::CollectiveTimer timer(spec, params, system.seed);
    const auto ranks = coll::nccl_group_ranks(timer.topology(), s.nodes, s.gpus_per_node);
    ValidatedLog out{file,      s.op_name, s.algo_name.empty() ? "auto" : s.algo_name, s.nodes, s.gpus_per_node,
                     s.assumed, {}};
    for (const auto& p : s.points) {
      const coll::NcclSize sim = coll::simulate_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm);
      const double error = (sim.busbw_gbps - p.busbw_gbps) / p.busbw_gbps;
      out.points.push_back({p.bytes, p.busbw_gbps, sim.busbw_gbps, error, sim.timing.algorithm, sim.timing.protocol});
      if (p.bytes >= kValidationSummaryFromBytes) errors.push_back(std::fabs(error));
    }
    v.logs.push_back(std::move(out));
  }
  v.summary_points = errors.size();
  v.median_rel_error = median(errors);
  v.max_rel_error = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  return v;
}

void write_log_validation(std::FILE* out, const LogValidation& v) {
  for (const ValidatedLog& log : v.logs) {
    std::fprintf(out, "# %s: %s on %d node(s) x %d GPU(s), algo %s\n", log.file.c_str(), log.op_name.c_str(), log.nodes,
                 log.gpus_per_node, log.algo_name.c_str());
    for (const auto& a : log.assumed) std::fprintf(out, "# note: assumed %s\n", a.c_str());
    std::fprintf(out, "#%13s %12s %12s %9s  %s\n", "size(B)", "measured", "fathom", "error", "algorithm protocol");
    for (const ValidatedPoint& p : log.points) {
      std::fprintf(out, "%14lld %12.2f %12.2f %+8.1f%%  %s %s\n", static_cast<long long>(p.bytes), p.measured_gbps,
                   p.simulated_gbps, 100 * p.error, std::string(coll::to_string(p.algorithm)).c_str(),
                   std::string(coll::to_string(p.protocol)).c_str());
    }
  }
  if (v.repeated > 0) {
    std::fprintf(out, "# %zu file(s) repeated another's measurement (a .log and its .csv) and counted once\n",
                 v.repeated);
  }
  std::fprintf(out, "files=%zu points=%zu median_rel_error=%.4f max_rel_error=%.4f\n", v.logs.size(), v.summary_points,
               v.median_rel_error, v.max_rel_error);
}

}  // namespace fathom::report
