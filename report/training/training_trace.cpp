// The Chrome trace (Perfetto) of a training step (write_training_trace): one process per
// pipeline stage with its compute and data-parallel streams, and the busiest links.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/training/training_report.hpp"
#include "sim/trace/chrome_trace.hpp"

namespace fathom::report {

void write_training_trace(std::ostream& out, const TrainingReport& report) {
  const train::TrainingResult& r = report.result;
  const train::TrainingSpec& t = report.scenario.training;
  sim::ChromeTrace trace;
  const int stages = static_cast<int>(r.stages.size());
  for (int s = 0; s < stages; ++s) {
    const int pid = s + 1;
    trace.process_name(pid, "stage " + std::to_string(s));
    trace.thread_name(pid, 2 * s + 1, "compute stream (TP rank 0)");
    trace.thread_name(pid, 2 * s + 2, "data-parallel stream");
    for (const auto& pt : r.pipeline.stages[static_cast<std::size_t>(s)]) {
      std::string name = std::string(pt.pass.forward ? "F" : "B") + std::to_string(pt.pass.micro_batch);
      if (t.parallel.virtual_stages > 1) name += "." + std::to_string(pt.pass.chunk);
      trace.complete(pid, 2 * s + 1, name, pt.start, pt.finish - pt.start, pt.pass.forward ? "forward" : "backward",
                     {{"micro_batch", pt.pass.micro_batch}, {"chunk", pt.pass.chunk}});
    }
    const auto& st = r.stages[static_cast<std::size_t>(s)];
    for (const auto& span : st.dp_spans) {
      trace.complete(pid, 2 * s + 2, "data-parallel collective", span.start, span.finish - span.start, "dp",
                     {{"bytes", span.bytes}});
    }
    trace.complete(pid, 2 * s + 2, "optimizer", st.optimizer_start, st.optimizer_finish - st.optimizer_start,
                   "optimizer");
  }
  // The busiest links, each a track of the data-parallel spans (every stage's groups share them).
  const int link_pid = stages + 1;
  trace.process_name(link_pid, "busiest links");
  std::vector<std::pair<sim::SimTime, sim::SimTime>> spans;
  for (const auto& st : r.stages) {
    for (const auto& span : st.dp_spans) spans.emplace_back(span.start, span.finish);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<sim::SimTime, sim::SimTime>> merged;
  for (const auto& sp : spans) {
    if (!merged.empty() && sp.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, sp.second);
    } else {
      merged.push_back(sp);
    }
  }
  for (std::size_t i = 0; i < r.links.size() && i < 8; ++i) {
    const int tid = 2 * stages + 1 + static_cast<int>(i);
    const auto& l = r.links[i];
    trace.thread_name(link_pid, tid, l.name);
    for (const auto& [a, b] : merged) {
      trace.complete(link_pid, tid, "data-parallel traffic", a, b - a, "link",
                     {{"utilisation_over_step", l.utilisation}});
    }
  }
  trace.write(out);
}

}  // namespace fathom::report
