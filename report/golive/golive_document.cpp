// A GPU cluster's go-live report as the page shows it: its criteria, the step's breakdown and
// memory per rank as charts, the pilot beside it.
#include <algorithm>
#include <string>
#include <vector>

#include "report/golive/golive_writers.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

namespace {

// The critical stage's step, component by component, the pilot's above this cluster's.
StackedChart step_chart(const GoLiveReport& g) {
  StackedChart c;
  c.id = "step-chart";
  c.title = "Step time breakdown (critical stage)";
  c.axis_label = "seconds per step";
  c.series = {"compute", "TP comm", "CP comm", "EP comm", "PP sends", "bubble", "DP comm", "optimizer"};
  const auto add = [&](const std::string& label, const GoLiveRun& run) {
    if (!run.training.fits()) return;
    std::vector<double> values;
    for (const auto& part : components(run.training.result.breakdown)) values.push_back(part.seconds);
    c.bars.push_back({label, values});
  };
  if (g.pilot) add("pilot (" + std::to_string(g.pilot->training.scenario.training.gpus) + " GPUs)", *g.pilot);
  add("this cluster (" + std::to_string(g.scenario().training.gpus) + " GPUs)", g.cluster);
  return c;
}

// Each pipeline stage's memory per rank against usable HBM and the headroom's limit.
StackedChart memory_chart(const GoLiveReport& g) {
  const train::MemoryReport& m = g.cluster.training.result.memory;
  constexpr double kGiB = 1ULL << 30;
  StackedChart c;
  c.id = "memory-chart";
  c.title = "Memory per rank by pipeline stage";
  c.axis_label = "GiB per GPU";
  c.series = {"weights", "gradients", "optimizer", "activations", "buffers", "runtime"};
  for (std::size_t i = 0; i < m.stages.size(); ++i) {
    const train::StageMemory& s = m.stages[i];
    c.bars.push_back({"stage " + std::to_string(i),
                      {s.weights / kGiB, s.gradients / kGiB, s.optimizer / kGiB, s.activations / kGiB,
                       s.communication / kGiB, s.runtime / kGiB}});
  }
  const double headroom = g.scenario().report.memory_headroom;
  c.markers = {{"usable HBM", m.capacity_bytes / kGiB}, {"with headroom", m.capacity_bytes * (1 - headroom) / kGiB}};
  return c;
}

}  // namespace

bool GoLiveDocument::all_pass() const { return none_failed(criteria); }

GoLiveDocument golive_document(const GoLiveReport& g) {
  GoLiveDocument d;
  d.file = g.scenario().file;
  d.cluster = cluster_line(g.cluster);
  d.workload = workload_line(g.cluster);
  d.criteria = g.criteria;
  if (g.cluster.training.fits()) {
    d.charts.push_back(step_chart(g));
  } else {
    d.no_step = "The strategy does not fit in memory: no step was simulated.";
  }
  d.charts.push_back(memory_chart(g));
  d.pilot = g.pilot.has_value();
  d.side_by_side = side_by_side(g);
  return d;
}

}  // namespace fathom::report
