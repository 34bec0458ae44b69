// The wafer-scale go-live report: its runs, and the page its rows, charts and pilot column make.
#include "report/golive/wafer_golive.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "models/workloads/training/transformer.hpp"
#include "models/workloads/wafer/swarmx_streams.hpp"
#include "report/golive/criterion_rows.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

namespace {

using criteria::number;

// A pilot or service scenario named by `report.KEY`, of the workload `wanted`.
scenario::Scenario named_scenario(const scenario::Scenario& s, const std::string& file, const char* key,
                                  bool (*wanted)(const scenario::Scenario&), const char* expected) {
  scenario::Scenario named = scenario::load_scenario(file);
  if (!wanted(named)) {
    throw scenario::ScenarioError(s.locations.at(std::string("report.") + key), std::string("report.") + key, expected,
                                  "\"" + file + "\"");
  }
  return named;
}

// One run's column of the side-by-side table.
std::vector<std::string> column(const WaferReport& r, const WaferPeak& p) {
  const scenario::Scenario& s = r.scenario;
  const wafer::WaferCluster& c = s.wafer;
  const wafer::WaferStep& step = r.step;
  return {s.file,
          std::to_string(c.systems) + " x " + c.system.name,
          c.memoryx.name + ", SwarmX fan-out " + std::to_string(c.swarmx.fan_out) + " (" +
              std::to_string(step.swarmx_levels) + " level(s))",
          std::to_string(step.per_system_batch) + " samples a system in " + std::to_string(step.micro_batches) +
              " micro-batch(es) of " + std::to_string(step.micro_batch),
          duration_text(step.step_s),
          number("%.1f%%", step.utilization * 100),
          number("%.1f%%", p.busy * 100),
          number("%.0f", step.tokens_per_s / c.systems),
          number("%.4g", step.tokens_per_s),
          number("%.1f GB/s", p.stream_bytes_per_s / 1e9) + " (" + number("%.1f%%", p.stream_utilisation() * 100) +
              " of the slowest hop)",
          size_text(step.memory.sram_bytes()) + " of " + size_text(step.memory.sram_capacity),
          size_text(step.memory.memoryx_bytes) + " of " + size_text(step.memory.memoryx_capacity),
          s.wafer_training.tokens > 0 ? duration_text(step.time_to_train_s) : "no token budget"};
}

std::vector<SideBySideRow> side_by_side(const WaferGoLiveReport& g) {
  static const char* const kFigures[] = {
      "scenario",   "systems",           "MemoryX and SwarmX",  "batch",    "step time",
      "MFU",        "wafer utilisation", "tokens/s per system", "tokens/s", "weight-stream bandwidth",
      "wafer SRAM", "MemoryX",           "time to train"};
  const std::vector<std::string> here = column(g.cluster, g.peak);
  const std::vector<std::string> pilot =
      g.pilot ? column(*g.pilot, wafer_peak(*g.pilot)) : std::vector<std::string>(here.size());
  std::vector<SideBySideRow> rows;
  for (std::size_t i = 0; i < here.size(); ++i) rows.push_back({kFigures[i], pilot[i], here[i]});
  return rows;
}

// Each resource's busy time over the step (they overlap: the longest chain sets the step, which
// the markers show), this cluster's and the pilot's.
StackedChart step_chart(const WaferGoLiveReport& g) {
  StackedChart c;
  c.id = "step-chart";
  c.title = "Each resource's busy time over the step (they overlap)";
  c.axis_label = "seconds per step";
  c.series = {"compute", "weights down", "gradients up", "MemoryX update"};
  const auto add = [&](const std::string& run, const WaferReport& r) {
    const wafer::WaferStep& s = r.step;
    const std::vector<double> busy = {s.compute_s, s.weight_stream_s, s.gradient_stream_s, s.update_s};
    for (std::size_t i = 0; i < busy.size(); ++i) {
      std::vector<double> values(busy.size(), 0.0);
      values[i] = busy[i];
      c.bars.push_back({run + c.series[i], values});
    }
    c.markers.push_back({run + "step", s.step_s});
  };
  if (g.pilot) add("pilot: ", *g.pilot);
  add(g.pilot ? "this cluster: " : "", g.cluster);
  return c;
}

// The wafer's SRAM: a micro-batch's activations, the weights streaming in, the gradients going
// out, against its capacity and the headroom's limit.
StackedChart memory_chart(const WaferGoLiveReport& g) {
  const wafer::WaferMemory& m = g.cluster.step.memory;
  constexpr double kGB = 1e9;
  StackedChart c;
  c.id = "memory-chart";
  c.title = "Wafer SRAM";
  c.axis_label = "GB per wafer";
  c.series = {"activations", "weights in flight", "gradients out"};
  c.bars.push_back(
      {"one wafer", {m.activation_bytes / kGB, m.weight_buffer_bytes / kGB, m.gradient_buffer_bytes / kGB}});
  const double headroom = g.scenario().report.memory_headroom;
  c.markers = {{"SRAM", m.sram_capacity / kGB}, {"with headroom", m.sram_capacity * (1 - headroom) / kGB}};
  return c;
}

}  // namespace

WaferPeak wafer_peak(const WaferReport& r) {
  const scenario::Scenario& s = r.scenario;
  const wafer::WaferCluster& c = s.wafer;
  const wafer::WaferStep& step = r.step;
  WaferPeak p;
  p.peak_flops = c.system.peak_dense_flops;
  p.efficiency = c.system.compute_efficiency;
  p.busy = step.step_s > 0 ? step.compute_s / step.step_s : 0;
  // The FLOPs a system executes are its compute time at the efficiency it computes at.
  const double executed = step.compute_s * p.peak_flops * p.efficiency;
  p.useful = executed > 0 ? step.model_flops_per_step / c.systems / executed : 0;
  p.ceiling = p.efficiency * p.useful;
  const std::vector<wafer::Hop> path = wafer::downward_path(c.systems, c.system, c.memoryx, c.swarmx);
  p.hops = static_cast<int>(path.size());
  p.line_rate_bytes_per_s = std::min_element(path.begin(), path.end(), [](const auto& a, const auto& z) {
                              return a.bytes_per_s < z.bytes_per_s;
                            })->bytes_per_s;
  const std::vector<wafer::StreamUnit> units = wafer::stream_units(s.wafer_training);
  p.layer_stream_bytes = units.at(1).parameters * s.wafer_training.stream_bytes_per_parameter;
  p.stream_bytes_per_s = step.layer_weight_stream_s > 0 ? p.layer_stream_bytes / step.layer_weight_stream_s : 0;
  return p;
}

WaferGoLiveReport evaluate_wafer_golive(const scenario::Scenario& s) {
  if (s.workload != scenario::WorkloadKind::kWaferTraining) {
    throw scenario::ScenarioError(s.locations.at("workload"), "workload.kind",
                                  "a training workload (the go-live report evaluates a training run)",
                                  "an inference service on wafers");
  }
  WaferGoLiveReport g;
  g.cluster = evaluate_wafer(s);
  g.peak = wafer_peak(g.cluster);
  if (!s.report.pilot.empty()) {
    g.pilot = evaluate_wafer(named_scenario(
        s, s.report.pilot, "pilot",
        [](const scenario::Scenario& p) { return p.workload == scenario::WorkloadKind::kWaferTraining; },
        "a pilot scenario of weight-streaming training on a wafer-scale cluster"));
  }
  if (!s.report.service.empty()) {
    g.service = evaluate_inference(named_scenario(
        s, s.report.service, "service",
        [](const scenario::Scenario& p) { return p.workload == scenario::WorkloadKind::kInference; },
        "a service scenario with an inference workload"));
  }
  for (const WaferCriterionRule& rule : wafer_golive_criteria()) {
    for (Criterion& c : rule.evaluate(g)) g.criteria.push_back(std::move(c));
  }
  return g;
}

GoLiveDocument wafer_golive_document(const WaferGoLiveReport& g) {
  const scenario::Scenario& s = g.scenario();
  const wafer::WaferCluster& c = s.wafer;
  const wafer::WaferTrainingSpec& t = s.wafer_training;
  GoLiveDocument d;
  d.file = s.file;
  d.cluster = std::to_string(c.systems) + " x " + c.system.name + "; " + c.memoryx.name + "; SwarmX fan-out " +
              std::to_string(c.swarmx.fan_out) + ", " + std::to_string(g.cluster.step.swarmx_levels) + " level(s)";
  d.workload = "train " + t.model.name + " (" + number("%.1f", train::parameter_count(t.model) / 1e9) +
               "B parameters) by weight streaming on " + std::to_string(c.systems) + " systems, sequence " +
               std::to_string(t.sequence) + ", global batch " + std::to_string(t.global_batch) + ", " +
               recompute_name(t.recompute) + " recomputation";
  d.criteria = g.criteria;
  d.charts = {step_chart(g), memory_chart(g)};
  d.pilot = g.pilot.has_value();
  d.side_by_side = side_by_side(g);
  return d;
}

}  // namespace fathom::report
