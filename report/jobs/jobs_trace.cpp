// The jobs run as a Perfetto timeline: a track per node, a slice per job on each node it held,
// and the cluster's busy GPUs and queue as counters (docs/jobs.md, "Outputs").
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
      trace.complete(kCluster, share.node + 1, "job " + std::to_string(job.id), r.start, r.end - r.start, "job",
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
  trace.write(out);
}

}  // namespace fathom::report
