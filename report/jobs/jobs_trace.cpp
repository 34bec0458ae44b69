// The jobs run as a Perfetto timeline: a track per node, a slice per job on each node it held,
// and the cluster's busy GPUs and queue as counters; a modelled training job's slices are named
// after it, and its step time is a counter of its own (docs/jobs.md, "Outputs").
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
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const jobs::TraceJob& job = w.jobs[i];
    const jobs::JobRun& r = run.jobs[i];
    for (std::int32_t k = 0; k < r.nodes; ++k) {
      const place::NodeShare& share = run.shares[r.first_share + static_cast<std::uint32_t>(k)];
      const std::string name = i < w.training.size() ? w.training[i].name : "job " + std::to_string(job.id);
      trace.complete(kCluster, share.node + 1, name, r.start, r.end - r.start, "job",
                     {{"gpus_here", share.gpus},
                      {"gpus", job.gpus},
                      {"wait_s", (r.start - job.submit).to_seconds()},
                      {"nodes", r.nodes}});
    }
  }
  for (const jobs::ClusterSample& c : run.timeline) {
    trace.counter(kCluster, "GPUs", c.at,
                  {{"busy", static_cast<double>(c.busy_gpus)}, {"stranded", static_cast<double>(c.stranded_gpus)}});
    trace.counter(kCluster, "jobs", c.at, {{"queued", c.queued}, {"running", c.running}});
  }
  for (const jobs::StepChange& c : run.step_changes) {
    trace.counter(kCluster, "step time " + w.training[c.job].name, c.at,
                  {{"step_s", c.step_s}, {"slowdown", c.slowdown}});
  }
  trace.write(out);
}

}  // namespace fathom::report
