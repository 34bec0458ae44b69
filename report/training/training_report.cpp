#include "report/training/training_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "models/storage/fabric_transfer.hpp"
#include "report/cost/cost_report.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

bool holds(const std::string& op, double actual, double wanted) {
  if (op == ">=") return actual >= wanted;
  if (op == "<=") return actual <= wanted;
  if (op == ">") return actual > wanted;
  if (op == "<") return actual < wanted;
  return actual == wanted;
}

double training_figure(const std::string& key, const TrainingReport& report) {
  const train::TrainingResult& r = report.result;
  const std::optional<cost::CostResult>& cost = report.cost;
  const std::optional<rel::RunResult>& run = report.run;
  if (key == "availability") {
    if (!report.availability) throw std::logic_error("training_figure: availability without a service");
    return report.availability->simulated.mean;
  }
  if (key == "data_load_per_sample" || key == "storage_iops") {
    if (!report.data) throw std::logic_error("training_figure: " + key + " without data loading");
    return key == "storage_iops" ? report.data->tier_iops : report.data->load_per_sample_s;
  }
  if (key == "effective_training_time" || key == "recovery_time" ||
      (key == "time_to_train" && run && run->inputs.steps > 0)) {
    if (!run) throw std::logic_error("training_figure: " + key + " without a whole run");
    if (key == "effective_training_time") return run->effective_training_time.mean;
    if (key == "recovery_time") return run->recovery_p99_s;
    return run->wall_s.mean;
  }
  if (scenario::is_cost_expectation(key)) {
    if (!cost) throw std::logic_error("training_figure: " + key + " without a cost result");
    if (key == "capex") return cost->capex_usd;
    if (key == "tco") return cost->tco_usd;
    if (key == "run_cost") return cost->usd_per_run;
    if (key == "it_power") return cost->power_w_it;
    return cost->power_w_facility;  // facility_power
  }
  if (key == "mfu") return r.mfu;
  if (key == "step_time") return r.step_seconds;
  if (key == "tokens_per_s") return r.tokens_per_s;
  if (key == "time_to_train") return r.time_to_train_s;
  if (key == "model_tflops_per_gpu") return r.model_tflops_per_gpu;
  if (key == "hardware_tflops_per_gpu") return r.hardware_tflops_per_gpu;
  return r.memory.peak_bytes;  // peak_memory_per_rank
}

namespace {

// What the run keeps on `tier` (bytes) when the tier gives no capacity: the last valid
// checkpoint and the one being written, and the data it reads (the dataset, or every sample once).
double bytes_held(const TrainingReport& report, const storage::TierSpec& tier) {
  const scenario::Scenario& s = report.scenario;
  double bytes = 0;
  if (s.checkpoint && s.checkpoint->tier == tier.name && report.run_setup && report.run_setup->checkpoint) {
    bytes += 2 * report.run_setup->checkpoint->bytes;
  }
  if (s.data && s.data->tier == tier.name) {
    const double tokens = s.run && s.run->tokens > 0 ? s.run->tokens : s.training.tokens;
    bytes += s.data->dataset_bytes > 0 ? s.data->dataset_bytes
                                       : tokens / s.training.sequence * s.data->sample_bytes(s.training.sequence);
  }
  return bytes;
}

}  // namespace

cost::Usage whole_run_usage(const TrainingReport& report) {
  const scenario::Scenario& s = report.scenario;
  cost::Usage u = training_usage(s, report.result);
  if (!report.run) return u;
  const rel::RunResult& run = *report.run;
  const double wall_s = run.wall_s.mean;
  if (run.inputs.steps > 0 && report.result.step_seconds > 0) u.steps_per_run = wall_s / report.result.step_seconds;
  // Spares beyond the cluster's idle nodes are bought beside it.
  const int job_nodes = (s.training.gpus + s.cluster.node.gpus - 1) / s.cluster.node.gpus;
  u.spare_nodes = std::max(0, run.inputs.spares - (s.cluster.nodes - job_nodes));
  // A shared tier the run uses, priced per usable TB and month for the run's wall time: its whole
  // capacity when it gives one (the run has it to itself), else what the run keeps there. A node's
  // own drives are in the node's price.
  const double months = wall_s / (cost::kHoursPerYear / 12 * 3600);
  for (const storage::TierSpec& tier : s.storage) {
    if (tier.per_node() || !(tier.usd_per_tb_month > 0)) continue;
    const double held = bytes_held(report, tier);
    if (held == 0) continue;
    const double tb = (tier.capacity_bytes > 0 ? tier.capacity_bytes : held) / 1e12;
    u.storage_usd_per_run += tier.usd_per_tb_month * tb * months;
  }
  return u;
}

TrainingReport evaluate_training(const scenario::Scenario& s, std::vector<std::string> command_catalogs,
                                 train::CommsCache* cache) {
  TrainingReport report;
  report.scenario = s;
  report.command_catalogs = std::move(command_catalogs);
  try {
    train::StepOptions options;
    options.cache = cache;
    report.result = train::simulate_training_step(s.training, s.accelerator, s.cluster, s.collectives, s.seed, options);
  } catch (const sim::TimeOutOfRange& e) {
    scenario::refuse_beyond_clock(s, e);
  }
  if (s.availability) report.availability = rel::service_availability(*s.availability, s.seed);
  if (!report.fits()) return report;
  const auto tier_named = [&](const std::string& name) -> const storage::TierSpec* {
    for (const auto& t : s.storage) {
      if (t.name == name) return &t;
    }
    return nullptr;
  };
  // The step on the same cluster with its fabric's links at other rates (what storage traffic
  // leaves them); not through the planner's cache, which would keep a cluster per transfer.
  const auto step_on = [&](const topo::ClusterSpec& shared) {
    return train::simulate_training_step(s.training, s.accelerator, shared, s.collectives, s.seed, {}).step_seconds;
  };
  double stall_s = 0;
  if (s.data) {
    const double tokens = s.run && s.run->tokens > 0 ? s.run->tokens : s.training.tokens;
    const double steps = std::ceil(tokens / (static_cast<double>(s.training.global_batch) * s.training.sequence));
    const storage::TierSpec& tier = *tier_named(s.data->tier);
    const int job_nodes = (s.training.gpus + s.cluster.node.gpus - 1) / std::max(1, s.cluster.node.gpus);
    storage::FabricTransfer read;
    const auto fabric_read = [&](int nodes, double bytes_per_node) {
      read = storage::fabric_transfer(s.cluster, tier, job_nodes, {{nodes, bytes_per_node}}, false, s.seed);
      return read.seconds;
    };
    report.data = train::plan_data_loading(*s.data, tier, s.data->cache.empty() ? nullptr : tier_named(s.data->cache),
                                           s.training, s.cluster.node, report.result.step_seconds, steps, fabric_read);
    // The step's figures stay the accelerators' and the fabric's; the time to train waits for the data too.
    stall_s = report.data->stall_s;
    if (tier.on_fabric()) {
      // The read's traffic beside the steps: over a step the links carry what the (cold) read puts
      // on them for as long as it runs, and the step runs on what that leaves.
      const double duty = std::min(1.0, read.seconds / report.result.step_seconds);
      for (std::size_t k = 0; k < read.link_load.size(); ++k) report.data->link_load[k] = read.link_load[k] * duty;
      report.data->traffic_step_s = step_on(storage::sharing_links(s.cluster, report.data->link_load));
      report.data->traffic_slowdown_s = std::max(0.0, report.data->traffic_step_s - report.result.step_seconds);
      stall_s += report.data->traffic_slowdown_s;
    }
    const double slower = (report.result.step_seconds + stall_s) / report.result.step_seconds;
    report.result.time_to_train_s *= slower;
    report.result.gpu_hours *= slower;
  }
  if (s.run || s.checkpoint) {
    try {
      report.run_setup = rel::plan_run(s.run.value_or(rel::RunSpec{}), s.checkpoint,
                                       s.checkpoint ? tier_named(s.checkpoint->tier) : nullptr, s.failures, s.training,
                                       report.result, stall_s, s.cluster, s.seed, step_on);
    } catch (const rel::RunSetupError& e) {
      const auto it = s.locations.find(e.key());
      const auto at = it != s.locations.end() ? it->second : s.locations.at("workload");
      throw scenario::ScenarioError(at, e.key(), e.what(), e.found());
    }
    if (s.run) report.run = rel::simulate_run(report.run_setup->inputs);
  }
  if (s.cost) {
    const cost::Usage usage = whole_run_usage(report);
    report.cost =
        cache ? price_cluster(s, usage, cache->topology(s.cluster, s.collectives, s.seed)) : price_cluster(s, usage);
  }
  for (const auto& e : s.expectations) {
    const double actual = training_figure(e.key, report);
    const bool pass = holds(e.op, actual, e.value);
    report.all_pass = report.all_pass && pass;
    report.expectations.push_back({e, actual, pass});
  }
  return report;
}

void require_fits(const TrainingReport& report) {
  if (report.fits()) return;
  const scenario::Scenario& s = report.scenario;
  const train::MemoryReport& m = report.result.memory;
  const auto it = s.locations.find("workload.parallel");
  const auto at = it != s.locations.end() ? it->second : s.locations.at("workload");
  throw scenario::ScenarioError(at, "workload.parallel",
                                "a strategy whose ranks fit in " + gib(m.capacity_bytes) + " of HBM",
                                gib(m.peak_bytes) + " on stage " + std::to_string(m.peak_stage) + " (not simulated)",
                                "raise tp or pp, use recompute: full, a higher zero stage, or a smaller micro_batch");
}

// The criterion's value over the number written gives the unit's size (">= 45%": 0.01,
// "<= 80GB": 1e9, "<= 2h": 3600).
std::string in_written_unit(double actual, const scenario::Expectation& e) {
  const std::size_t begin = e.text.find_first_of("0123456789.");
  char buf[64];
  if (begin != std::string::npos) {
    std::size_t end = begin;
    const double number = std::stod(e.text.substr(begin), &end);
    std::string unit = e.text.substr(begin + end);
    while (!unit.empty() && unit.back() == ' ') unit.pop_back();
    if (number != 0 && e.value != 0 && std::isfinite(e.value / number)) {
      std::snprintf(buf, sizeof buf, "%.4g%s", actual / (e.value / number), unit.c_str());
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.6g", actual);
  return buf;
}

}  // namespace fathom::report
