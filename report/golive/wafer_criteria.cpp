// The go-live criteria of a wafer-scale training cluster, in the report's order
// (docs/go-live.md, "On a wafer-scale cluster"). The rows a GPU cluster's report has, each
// reckoned from the weight-streaming step; the ones fathom has no wafer model for say so.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/golive/criterion_rows.hpp"
#include "report/golive/wafer_golive.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

namespace {

using criteria::find;
using criteria::margin;
using criteria::number;
using criteria::percent;
using criteria::verdict;

// What holds the wafers back most, among the three resources that work beside them, and what
// reduces it.
std::string largest_wait(const WaferReport& r) {
  const wafer::WaferStep& s = r.step;
  const std::vector<std::pair<double, std::string>> waits = {
      {s.weight_stream_s,
       "the weight stream: a micro-batch of at least the balance point (" + number("%.1f", s.balance_micro_batch) +
           " samples; workload.micro_batch), or more samples a system (a larger global batch or fewer systems)"},
      {s.gradient_stream_s,
       "the gradient stream: faster SwarmX links or system I/O, or more samples a system so that it is a smaller "
       "share of the step"},
      {s.update_s,
       "MemoryX's update: more update bandwidth (cluster.memoryx.update_bandwidth), or more samples a step (the "
       "update runs once a step)"},
  };
  const auto worst =
      std::max_element(waits.begin(), waits.end(), [](const auto& a, const auto& z) { return a.first < z.first; });
  return "the wafers wait most on " + worst->second;
}

std::vector<Criterion> throughput(const WaferGoLiveReport& g) {
  const WaferReport& r = g.cluster;
  const WaferPeak& p = g.peak;
  const wafer::WaferStep& s = r.step;
  const std::string name = "Training throughput against peak (MFU)";
  const ExpectationOutcome* e = find(r.expectations, "mfu");
  const double target = e ? e->expectation.value : g.scenario().report.mfu;
  Criterion c = criteria::held_to(name, r.expectations, "mfu", s.utilization, ">=", target, percent(target),
                                  percent(s.utilization));
  c.note = "Of a system's " + number("%.4g", p.peak_flops / 1e15) +
           " PFLOP/s dense peak (cluster.system.peak_dense), the wafer computes at " + percent(p.efficiency) +
           " (cluster.system.compute_efficiency, the scenario's figure) and " + percent(p.useful) +
           " of the FLOPs executed are the model's (the rest is recomputation): with the streams and the update "
           "hidden, MFU would reach at most " +
           percent(p.ceiling) + ". The wafers compute " + percent(p.busy) + " of the step; beside them the weights " +
           "stream down " + percent(s.weight_stream_s / s.step_s) + " of it, the gradients up " +
           percent(s.gradient_stream_s / s.step_s) + ", and MemoryX updates " + percent(s.update_s / s.step_s) + ".";
  if (c.verdict == Verdict::kFail) {
    c.remedy = p.ceiling < target ? "the wafers alone cannot reach the target at this efficiency: less recomputation"
                                  : largest_wait(r);
  }
  return {c};
}

std::vector<Criterion> wafer_utilisation(const WaferGoLiveReport& g) {
  const double target = g.scenario().report.gpu_busy;
  Criterion c;
  c.name = "Wafer utilisation (share of the step computing)";
  c.predicted = percent(g.peak.busy);
  c.target = ">= " + percent(target) + " (report.gpu_busy)";
  c.verdict = verdict(g.peak.busy >= target);
  c.margin = margin(">=", g.peak.busy, target);
  c.note =
      "The wafers' compute time over the step (the figure the cost model scales their power by); they wait for "
      "the weights of the unit they run next.";
  if (c.verdict == Verdict::kFail) c.remedy = largest_wait(g.cluster);
  return {c};
}

std::vector<Criterion> weight_stream(const WaferGoLiveReport& g) {
  const WaferPeak& p = g.peak;
  const hw::SwarmXSpec& x = g.scenario().wafer.swarmx;
  const double target = g.scenario().report.bandwidth;
  Criterion c;
  c.name = "Weight-stream bandwidth utilisation (SwarmX)";
  c.predicted = percent(p.stream_utilisation()) + " (" + number("%.1f", p.stream_bytes_per_s / 1e9) + " of " +
                number("%.1f", p.line_rate_bytes_per_s / 1e9) + " GB/s)";
  c.target = ">= " + percent(target) + " of the path's slowest hop (report.bandwidth)";
  c.verdict = verdict(p.stream_utilisation() >= target);
  c.margin = margin(">=", p.stream_utilisation(), target);
  c.note = "A transformer layer's " + size_text(p.layer_stream_bytes) +
           " of weights from MemoryX to every system over " + std::to_string(p.hops) + " hops (MemoryX, " +
           std::to_string(g.cluster.step.swarmx_levels) + " SwarmX level(s), the system's I/O) in chunks of " +
           size_text(x.chunk_bytes) +
           " (cluster.swarmx.chunk), against the slowest hop's rate: the rest is the chunk pipeline's fill, each "
           "hop's latency and one chunk's time.";
  if (c.verdict == Verdict::kFail) {
    c.remedy =
        "the pipeline's fill is a large share of a layer's stream: a larger fan-out (fewer levels), a shorter hop "
        "latency, or smaller chunks (cluster.swarmx)";
  }
  return {c};
}

std::vector<Criterion> memory(const WaferGoLiveReport& g) {
  const wafer::WaferMemory& m = g.cluster.step.memory;
  const double headroom = g.scenario().report.memory_headroom;
  Criterion x;
  x.name = "Parameters and optimizer state in MemoryX";
  x.predicted = size_text(m.memoryx_bytes) + " of " + size_text(m.memoryx_capacity);
  x.target = "<= " + size_text(m.memoryx_capacity) + " (cluster.memoryx)";
  x.verdict = verdict(m.memoryx_fits());
  x.margin = margin("<=", m.memoryx_bytes, m.memoryx_capacity);
  x.note =
      "Every parameter's weights and optimizer state at workload.state_bytes_per_parameter; MemoryX holds "
      "them for the whole run, so no headroom is asked for.";
  const double limit = m.sram_capacity * (1 - headroom);
  Criterion w;
  w.name = "72-hour run without OOM (wafer SRAM)";
  w.predicted = size_text(m.sram_bytes()) + " of " + size_text(m.sram_capacity);
  w.target = "<= " + size_text(limit) + " (" + percent(headroom) + " of the SRAM free, report.memory_headroom)";
  w.verdict = verdict(m.sram_bytes() <= limit);
  w.margin = margin("<=", m.sram_bytes(), limit);
  w.note =
      "A micro-batch's activations over every layer, two units' weights streaming in and one unit's gradients "
      "going out, against the wafer's SRAM; the headroom is for what the counted bytes leave out (the "
      "compiler's placement of them, longer sequences), which Cerebras does not publish.";
  if (w.verdict == Verdict::kFail) {
    w.remedy = "a smaller micro-batch (workload.micro_batch), or recompute: full to keep only each layer's input";
  }
  return {x, w};
}

std::vector<Criterion> time_to_train(const WaferGoLiveReport& g) {
  const WaferReport& r = g.cluster;
  if (!(g.scenario().wafer_training.tokens > 0)) return {};
  Criterion c = criteria::time_to_train_row(r.expectations, r.step.time_to_train_s);
  c.note = number("%.3g", g.scenario().wafer_training.tokens) + " tokens at " + number("%.4g", r.step.tokens_per_s) +
           " tokens/s, with no failures, restarts or checkpoints (fathom models none on wafer-scale systems).";
  if (c.verdict == Verdict::kFail) {
    c.remedy = "more systems (fathom plan finds the fewest that meet the deadline), or a larger micro-batch";
  }
  return {c};
}

std::vector<Criterion> cost_and_power(const WaferGoLiveReport& g) {
  if (!g.cluster.cost) return {};
  return criteria::cost_rows(*g.cluster.cost, g.cluster.expectations, g.scenario().wafer_training.tokens > 0);
}

std::vector<Criterion> other_expectations(const WaferGoLiveReport& g) {
  return criteria::remaining_expectations(
      g.cluster.expectations, {"mfu", "time_to_train", "capex", "tco", "run_cost", "it_power", "facility_power"});
}

double tokens_per_s_per_system(const WaferReport& r) { return r.step.tokens_per_s / r.scenario.wafer.systems; }

std::vector<Criterion> pilot_path(const WaferGoLiveReport& g) {
  const double target = g.scenario().report.scaling;
  Criterion c;
  c.name = "Pilot then production: scaling efficiency";
  c.target = ">= " + percent(target) + " of the pilot's tokens/s per system (report.scaling)";
  if (!g.pilot) {
    c.verdict = Verdict::kNotEvaluated;
    c.remedy = "name the pilot's scenario under report.pilot";
    return {c};
  }
  const double here = tokens_per_s_per_system(g.cluster);
  const double there = tokens_per_s_per_system(*g.pilot);
  const double efficiency = there > 0 ? here / there : 0;
  c.predicted =
      percent(efficiency) + " (" + number("%.0f", here) + " vs " + number("%.0f", there) + " tokens/s per system)";
  c.verdict = verdict(efficiency >= target);
  c.margin = margin(">=", efficiency, target);
  c.note = "This cluster's tokens/s per system over the pilot's (" + g.pilot->scenario.file + ", " +
           std::to_string(g.pilot->scenario.wafer.systems) + " systems).";
  if (c.verdict == Verdict::kFail) c.remedy = largest_wait(g.cluster);
  return {c};
}

std::vector<Criterion> inference_service(const WaferGoLiveReport& g) { return criteria::service_rows(g.service); }

// The rows of a GPU cluster's report that need a model fathom has only for GPU clusters.
std::vector<Criterion> not_on_wafers(const WaferGoLiveReport& g) {
  const scenario::ReportSpec& spec = g.scenario().report;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"Recovery from a failure (p99)", "<= " + duration_text(spec.recovery_time_s)},
      {"Effective training time through failures", ">= " + percent(spec.effective_training_time)},
      {"Storage IOPS", ">= " + criteria::count_text(spec.storage_iops)},
      {"Data loading per sample (cold start)", "<= " + duration_text(spec.data_load_per_sample_s)},
      {"Availability of a service", ">= " + number("%.2f%%", 100 * spec.availability)}};
  std::vector<Criterion> out;
  for (const auto& [name, target] : rows) {
    Criterion c;
    c.name = name;
    c.target = target;
    c.verdict = Verdict::kNotModelled;
    c.remedy =
        "fathom models failures, checkpoints, storage and availability for GPU clusters only: Cerebras publishes "
        "no failure rates or checkpoint and input paths for its systems (docs/wafer.md, Not modelled)";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

const std::vector<WaferCriterionRule>& wafer_golive_criteria() {
  static const std::vector<WaferCriterionRule> rules = {
      {"throughput", throughput},       {"wafer_utilisation", wafer_utilisation},
      {"weight_stream", weight_stream}, {"memory", memory},
      {"time_to_train", time_to_train}, {"cost", cost_and_power},
      {"expect", other_expectations},   {"pilot", pilot_path},
      {"inference", inference_service}, {"not_on_wafers", not_on_wafers},
  };
  return rules;
}

}  // namespace fathom::report
