#include "report/jobs/jobs_report.hpp"

#include <algorithm>
#include <utility>

#include "report/terminal.hpp"
#include "sim/simulation.hpp"
#include "sim/stats/histogram.hpp"
#include "topologies/cluster.hpp"

namespace fathom::report {

namespace {

// Where each node sits in the fabric: its leaf switch (the one its first NIC is cabled to; -1 for
// a node without NICs) and its pod (the first spine that leaf is cabled to: one for every leaf
// of a 2-tier fabric, one per pod of a 3-tier one).
struct FabricPlace {
  std::vector<std::int32_t> leaf, pod;
};

FabricPlace fabric_place(const topo::ClusterSpec& spec) {
  const topo::Topology topology = topo::build_cluster(spec);
  FabricPlace p;
  p.leaf.assign(static_cast<std::size_t>(spec.nodes), -1);
  p.pod.assign(static_cast<std::size_t>(spec.nodes), -1);
  for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
    const topo::Vertex& x = topology.vertex(v);
    if (x.kind != topo::VertexKind::kNic || x.node < 0 || p.leaf[static_cast<std::size_t>(x.node)] >= 0) continue;
    for (const topo::LinkId l : topology.out_links(v)) {
      if (topology.link(l).cls != topo::LinkClass::kHostLeaf) continue;
      const topo::VertexId leaf = topology.link(l).to;
      p.leaf[static_cast<std::size_t>(x.node)] = static_cast<std::int32_t>(leaf);
      for (const topo::LinkId up : topology.out_links(leaf)) {
        if (topology.link(up).cls == topo::LinkClass::kLeafSpine) {
          p.pod[static_cast<std::size_t>(x.node)] = static_cast<std::int32_t>(topology.link(up).to);
          break;
        }
      }
      break;
    }
  }
  return p;
}

}  // namespace

JobsSummary summarize_jobs(const scenario::JobsWorkload& w, const jobs::JobClusterRun& run) {
  JobsSummary s;
  s.count = static_cast<std::int64_t>(w.jobs.size());
  if (w.jobs.empty()) return s;
  sim::ExactQuantiles wait;
  wait.reserve(w.jobs.size());
  double bounded = 0, jct = 0, gpu_seconds = 0;
  sim::SimTime last_end = sim::SimTime::zero();
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const jobs::TraceJob& j = w.jobs[i];
    const jobs::JobRun& r = run.jobs[i];
    const double wait_s = (r.start - j.submit).to_seconds();
    const double run_s = j.run.to_seconds();
    wait.add(wait_s);
    bounded += std::max(1.0, (wait_s + run_s) / std::max(run_s, kBoundedSlowdownFloorS));
    jct += (r.end - j.submit).to_seconds();
    gpu_seconds += run_s * j.gpus;
    last_end = std::max(last_end, r.end);
  }
  const double n = static_cast<double>(w.jobs.size());
  s.makespan_s = (last_end - w.jobs.front().submit).to_seconds();
  s.utilization = s.makespan_s > 0 ? gpu_seconds / (static_cast<double>(run.total_gpus) * s.makespan_s) : 0;
  s.mean_wait_s = wait.mean();
  s.p50_wait_s = wait.p50();
  s.p90_wait_s = wait.p90();
  s.p99_wait_s = wait.p99();
  s.max_wait_s = wait.max();
  s.mean_bounded_slowdown = bounded / n;
  s.mean_jct_s = jct / n;
  // The timeline holds the state after each change: each sample lasts until the next.
  double busy_while_waiting = 0;
  for (std::size_t k = 0; k + 1 < run.timeline.size(); ++k) {
    const jobs::ClusterSample& c = run.timeline[k];
    s.max_queued = std::max(s.max_queued, c.queued);
    if (c.queued == 0) continue;
    const double dt = (run.timeline[k + 1].at - c.at).to_seconds();
    s.waiting_time_s += dt;
    busy_while_waiting += dt * static_cast<double>(c.busy_gpus);
  }
  if (s.waiting_time_s > 0) s.allocation_ratio = busy_while_waiting / (s.waiting_time_s * run.total_gpus);
  return s;
}

JobsReport evaluate_jobs(scenario::Scenario scenario) {
  if (scenario.workload != scenario::WorkloadKind::kJobs) {
    const auto it = scenario.locations.find("workload.kind");
    throw scenario::ScenarioError(it == scenario.locations.end() ? scenario::Location{scenario.file, 0, 0} : it->second,
                                  "workload.kind", "jobs", "another workload kind");
  }
  JobsReport report;
  report.scenario = std::move(scenario);
  const scenario::Scenario& s = report.scenario;
  if (s.jobs.is_packing()) {
    report.packing =
        jobs::run_packing(s.jobs.share_nodes.nodes, s.jobs.share_tasks, {s.jobs.fill, s.jobs.share_policy, s.seed});
    return report;
  }
  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(static_cast<std::size_t>(s.cluster.nodes), s.cluster.node.gpus);
  FabricPlace where = fabric_place(s.cluster);
  spec.leaf_of_node = std::move(where.leaf);
  spec.pod_of_node = std::move(where.pod);
  const int domain = std::max(1, s.cluster.node.nvlink_domain_nodes);
  for (int n = 0; n < s.cluster.nodes; ++n) spec.island_of_node.push_back(n / domain);
  spec.scheduler = s.jobs.scheduler;
  spec.placement = s.jobs.placement;
  spec.predict_from_history = s.jobs.estimates == scenario::EstimateSource::kPredicted;
  report.run = jobs::run_job_cluster(s.jobs.jobs, s.jobs.job_estimates, spec, s.seed);
  report.summary = summarize_jobs(s.jobs, report.run);
  return report;
}

}  // namespace fathom::report
