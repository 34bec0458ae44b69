// The jobs run as a Perfetto timeline: a track per node, a slice per job on each node it held
// (and per service replica beside them), and the cluster's busy GPUs and queue as counters; a modelled training job's
// slices are named after it, and its step time is a counter of its own (docs/jobs.md, "Outputs").
#include <string>

#include "report/jobs/jobs_report.hpp"
#include "sim/trace/chrome_trace.hpp"

namespace fathom::report {

void write_jobs_trace(std::ostream& out, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  const jobs::JobClusterRun& run = report.run;
  constexpr int kCluster = 1;
  sim::ChromeTrace trace;
  trace.process_name(kCluster, "cluster");
  for (int n = 0; n < report.scenario.cluster.nodes; ++n)
    trace.thread_name(kCluster, n + 1, "node " + std::to_string(n));
  // A slice per run of a job on each node it held in that run.
  for (const jobs::JobSegment& seg : jobs::all_runs(run)) {
    const jobs::TraceJob& job = w.jobs[seg.job];
    const std::string name = seg.job < w.training.size() ? w.training[seg.job].name : "job " + std::to_string(job.id);
    for (std::int32_t k = 0; k < seg.nodes; ++k) {
      const place::NodeShare& share = run.shares[seg.first_share + static_cast<std::uint32_t>(k)];
      trace.complete(kCluster, share.node + 1, name, seg.start, seg.end - seg.start, "job",
                     {{"gpus_here", share.gpus},
                      {"gpus", job.gpus},
                      {"wait_s", (run.jobs[seg.job].start - job.submit).to_seconds()},
                      {"nodes", seg.nodes}});
    }
  }
  // A slice per service replica on the node it held, from its grant to its release.
  const sim::SimTime last = run.timeline.empty() ? sim::SimTime::zero() : run.timeline.back().at;
  for (const jobs::ClaimRecord& c : run.claims) {
    if (c.granted < sim::SimTime::zero()) continue;
    const sim::SimTime end = c.released < sim::SimTime::zero() ? last : c.released;
    const std::string name = w.services[c.service].name + " replica " + std::to_string(c.replica);
    for (const place::NodeShare& share : c.shares) {
      trace.complete(kCluster, share.node + 1, name, c.granted, end - c.granted, "replica",
                     {{"gpus_here", share.gpus}, {"waited_s", (c.granted - c.asked).to_seconds()}});
    }
  }
  for (const jobs::ClusterSample& c : run.timeline) {
    if (report.services.empty()) {
      trace.counter(kCluster, "GPUs", c.at,
                    {{"busy", static_cast<double>(c.busy_gpus)}, {"stranded", static_cast<double>(c.stranded_gpus)}});
    } else {
      trace.counter(kCluster, "GPUs", c.at,
                    {{"busy", static_cast<double>(c.busy_gpus)},
                     {"stranded", static_cast<double>(c.stranded_gpus)},
                     {"services", static_cast<double>(c.service_gpus)}});
    }
    trace.counter(kCluster, "jobs", c.at, {{"queued", c.queued}, {"running", c.running}});
  }
  for (const jobs::StepChange& c : run.step_changes) {
    trace.counter(kCluster, "step time " + w.training[c.job].name, c.at,
                  {{"step_s", c.step_s}, {"slowdown", c.slowdown}});
  }
  trace.write(out);
}

}  // namespace fathom::report
