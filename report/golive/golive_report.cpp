#include "report/golive/golive_report.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "report/collectives/nccl_tests_sweep.hpp"
#include "report/cost/cost_report.hpp"

namespace fathom::report {

namespace {

// Above this many GPUs the bandwidth check times the all-reduce by its closed form, which on an
// idle cluster equals the simulation (tests/models/collectives/, docs/nccl-tests.md) and takes
// a tenth of its time: a ring's transfers grow with the square of its GPUs.
constexpr int kLargestSimulatedGroup = 128;

}  // namespace

std::string_view verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kReported:
      return "reported";
    case Verdict::kNotEvaluated:
      return "not evaluated";
    case Verdict::kNotModelled:
      return "not modelled yet";
  }
  return "not evaluated";
}

double GoLiveRun::tokens_per_s_per_gpu() const {
  const int gpus = training.scenario.training.gpus;
  return gpus > 0 ? training.result.tokens_per_s / gpus : 0;
}

bool none_failed(const std::vector<Criterion>& criteria) {
  return std::none_of(criteria.begin(), criteria.end(), [](const Criterion& c) { return c.verdict == Verdict::kFail; });
}

bool GoLiveReport::all_pass() const { return none_failed(criteria); }

ReachablePeak reachable_peak(const scenario::Scenario& s, const train::TrainingResult& r) {
  ReachablePeak p;
  const hw::Precision precision = s.training.precision;
  p.peak_flops =
      s.accelerator.peak(precision) > 0 ? s.accelerator.peak(precision) : s.accelerator.peak(hw::Precision::kBf16);
  // The cost model's notion of busy (stages' compute over the step, averaged), so that the
  // report and the power bill agree on how hard the accelerators work.
  p.busy = training_usage(s, r).busy_fraction;
  p.useful = r.flops.hardware > 0 ? r.flops.model / r.flops.hardware : 0;
  if (p.busy > 0 && p.peak_flops > 0) p.kernel_efficiency = r.hardware_tflops_per_gpu * 1e12 / p.peak_flops / p.busy;
  p.ceiling = p.kernel_efficiency * p.useful;
  const train::StepBreakdown& b = r.breakdown;
  const double step = b.total();
  if (step > 0) {
    p.compute_share = b.compute / step;
    p.bubble_share = b.bubble / step;
    p.communication_share = (b.tp + b.cp + b.ep + b.pp + b.dp) / step;
    p.optimizer_share = b.optimizer / step;
    p.straggler_share = b.straggler / step;
  }
  return p;
}

std::optional<FabricBandwidth> fabric_bandwidth(const scenario::Scenario& s) {
  if (s.cluster.nodes < 2 || s.cluster.node.gpus < 1 || s.cluster.node.nics < 1) return std::nullopt;
  FabricBandwidth f;
  f.nodes = std::min(s.cluster.nodes, s.report.bandwidth_nodes);
  f.gpus = f.nodes * s.cluster.node.gpus;
  f.line_rate_bytes_per_s = s.cluster.node.nics * s.cluster.node.nic_bytes_per_s;
  NcclTestsRequest q;
  q.op = "all_reduce";
  q.min_bytes = q.max_bytes = static_cast<std::int64_t>(s.report.bandwidth_bytes);
  q.nodes = f.nodes;
  q.closed_form = f.gpus > kLargestSimulatedGroup;
  const NcclTestsSweep sweep = run_nccl_tests_sweep(s, q);
  const coll::NcclSize& size = sweep.rows.front().size;
  f.message_bytes = static_cast<double>(size.bytes);
  f.bus_bytes_per_s = size.busbw_gbps * 1e9;
  f.algorithm = std::string(coll::to_string(size.timing.algorithm));
  f.closed_form = q.closed_form;
  return f;
}

GoLiveRun run_golive(const scenario::Scenario& s, std::vector<std::string> command_catalogs) {
  GoLiveRun run;
  run.training = evaluate_training(s, std::move(command_catalogs));
  if (run.training.fits()) run.peak = reachable_peak(s, run.training.result);
  run.bandwidth = fabric_bandwidth(s);
  return run;
}

GoLiveReport evaluate_golive(const scenario::Scenario& s, std::vector<std::string> command_catalogs) {
  if (s.workload != scenario::WorkloadKind::kTraining) {
    const auto it = s.locations.find("workload");
    throw scenario::ScenarioError(it != s.locations.end() ? it->second : s.report.where, "workload.kind",
                                  "a training workload (the go-live report evaluates a training run)",
                                  "another workload kind");
  }
  GoLiveReport report;
  report.cluster = run_golive(s, command_catalogs);
  if (!s.report.pilot.empty()) {
    const scenario::Scenario pilot = scenario::load_scenario(s.report.pilot);
    if (pilot.workload != scenario::WorkloadKind::kTraining) {
      throw scenario::ScenarioError(s.locations.at("report.pilot"), "report.pilot",
                                    "a pilot scenario with a training workload", "\"" + s.report.pilot + "\"");
    }
    report.pilot = run_golive(pilot, command_catalogs);
  }
  if (!s.report.service.empty()) {
    scenario::Scenario service = scenario::load_scenario(s.report.service);
    if (service.workload != scenario::WorkloadKind::kInference) {
      throw scenario::ScenarioError(s.locations.at("report.service"), "report.service",
                                    "a service scenario with an inference workload", "\"" + s.report.service + "\"");
    }
    report.service = evaluate_inference(std::move(service));
  }
  for (const CriterionRule& rule : golive_criteria()) {
    for (Criterion& c : rule.evaluate(report)) report.criteria.push_back(std::move(c));
  }
  return report;
}

}  // namespace fathom::report
