// The Chrome trace (Perfetto) of a training step (write_training_trace): one process per
// pipeline stage with its compute and data-parallel streams, and the busiest links.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/training/training_report.hpp"
#include "sim/trace/chrome_trace.hpp"

namespace fathom::report {

namespace {

// The whole run's first replication on its own process: training segments, checkpoint blocks,
// failures (instants, named by component) and each recovery phase.
void add_run_timeline(sim::ChromeTrace& trace, const rel::RunResult& run, int pid) {
  using Kind = rel::RunEvent::Kind;
  trace.process_name(pid, "whole run (replication 0)");
  trace.thread_name(pid, 1, "training");
  trace.thread_name(pid, 2, "checkpoints");
  trace.thread_name(pid, 3, "failures");
  trace.thread_name(pid, 4, "recovery");
  struct Track {
    int tid;
    const char* name;
    const char* category;
  };
  // By RunEvent::Kind: training, checkpoint, failure, detection, waiting, resubmit, restart, restore.
  static constexpr Track kTracks[] = {{1, "training", "run"},
                                      {2, "checkpoint", "run"},
                                      {3, "failure", "failure"},
                                      {4, "detection", "recovery"},
                                      {4, "waiting for a node", "recovery"},
                                      {4, "resubmitted", "recovery"},
                                      {4, "restart", "recovery"},
                                      {4, "restore", "recovery"}};
  for (const rel::RunEvent& e : run.replications.front().timeline) {
    const Track& t = kTracks[static_cast<std::size_t>(e.kind)];
    const sim::SimTime start = sim::SimTime::from_ns(e.start_ns);
    if (e.kind == Kind::kFailure) {
      trace.instant(pid, t.tid, std::string(rel::component_name(e.component)), start, t.category);
    } else {
      trace.complete(pid, t.tid, t.name, start, sim::SimTime::from_ns(e.end_ns - e.start_ns), t.category);
    }
  }
}

}  // namespace

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
    // The stage's compute over the step by kernel class (seconds), as one span over its pipeline.
    const train::KernelClassSeconds& k = st.breakdown.kernels;
    trace.thread_name(pid, 2 * stages + s + 1, "compute by kernel class");
    trace.complete(
        pid, 2 * stages + s + 1, "compute by kernel class", sim::SimTime{}, st.pipeline_finish, "compute",
        {{"gemm_s", k.gemm}, {"attention_s", k.attention}, {"memory_bound_s", k.memory}, {"fp8_casts_s", k.fp8_casts}});
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
  if (report.run) add_run_timeline(trace, *report.run, link_pid + 1);
  trace.write(out);
}

}  // namespace fathom::report
