#include <cstdio>

#include "models/workloads/training/transformer.hpp"
#include "report/golive/criterion_rows.hpp"
#include "report/golive/golive_writers.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

namespace {

using criteria::number;

// One run's column; "" for a figure a run that does not fit cannot give.
std::vector<std::string> column(const GoLiveRun& run) {
  const scenario::Scenario& s = run.training.scenario;
  const train::TrainingSpec& t = s.training;
  const train::TrainingResult& r = run.training.result;
  const bool ran = run.training.fits();
  const auto when = [&](std::string text) { return ran ? text : std::string("(does not fit)"); };
  const std::string bandwidth = run.bandwidth
                                    ? number("%.1f GB/s", run.bandwidth->bus_bytes_per_s / 1e9) + " (" +
                                          number("%.1f%%", run.bandwidth->utilisation() * 100) + " of line rate)"
                                    : "one node";
  return {s.file,
          std::to_string(s.cluster.nodes) + " x " + std::to_string(s.cluster.node.gpus) + " " + s.accelerator.name,
          "TP " + std::to_string(t.parallel.tp) + ", PP " + std::to_string(t.parallel.pp) + ", DP " +
              std::to_string(t.parallel.dp) + ", global batch " + std::to_string(t.global_batch),
          when(duration_text(r.step_seconds)),
          when(number("%.1f%%", r.mfu * 100)),
          when(number("%.1f%%", run.peak ? run.peak->busy * 100 : 0)),
          when(number("%.0f", run.tokens_per_s_per_gpu())),
          when(number("%.4g", r.tokens_per_s)),
          bandwidth,
          gib(r.memory.peak_bytes) + " of " + gib(r.memory.capacity_bytes),
          t.tokens > 0 ? when(duration_text(r.time_to_train_s)) : "no token budget"};
}

}  // namespace

std::vector<SideBySideRow> side_by_side(const GoLiveReport& g) {
  static const char* const kFigures[] = {"scenario",
                                         "GPUs",
                                         "strategy",
                                         "step time",
                                         "MFU",
                                         "GPU utilisation",
                                         "tokens/s per GPU",
                                         "tokens/s",
                                         "all-reduce bus bandwidth",
                                         "peak memory per rank",
                                         "time to train"};
  const std::vector<std::string> here = column(g.cluster);
  const std::vector<std::string> pilot = g.pilot ? column(*g.pilot) : std::vector<std::string>(here.size());
  std::vector<SideBySideRow> rows;
  for (std::size_t i = 0; i < here.size(); ++i) rows.push_back({kFigures[i], pilot[i], here[i]});
  return rows;
}

std::string cluster_line(const GoLiveRun& run) {
  const scenario::Scenario& s = run.training.scenario;
  return std::to_string(s.cluster.nodes) + " nodes x " + std::to_string(s.cluster.node.gpus) + " " +
         s.accelerator.name + "; " + run.training.result.cluster.description;
}

std::string workload_line(const GoLiveRun& run) {
  const train::TrainingSpec& t = run.training.scenario.training;
  return "train " + t.model.name + " (" + number("%.1f", train::parameter_count(t.model) / 1e9) + "B parameters) on " +
         std::to_string(t.gpus) + " GPUs, sequence " + std::to_string(t.sequence) + ", " + precision_name(t.precision) +
         ", " + recompute_name(t.recompute) + " recomputation";
}

}  // namespace fathom::report
