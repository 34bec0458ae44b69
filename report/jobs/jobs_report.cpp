#include "report/jobs/jobs_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "models/reliability/run_setup.hpp"
#include "models/workloads/jobs/shared_cluster.hpp"
#include "models/workloads/training/checkpoint.hpp"
#include "models/workloads/training/comms_cache.hpp"
#include "models/workloads/training/step_model.hpp"
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

FabricPlace fabric_place(const topo::ClusterSpec& spec, const topo::Topology& topology) {
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

// Each training job's step simulated alone, on the cluster's first nodes, and its ring rate
// there; its run time and the scheduler's estimate are its steps at that step time.
void simulate_alone(JobsReport& report, jobs::FabricShare& fabric) {
  scenario::Scenario& s = report.scenario;
  scenario::JobsWorkload& w = s.jobs;
  train::CommsCache cache;
  const std::int32_t per_node = std::max(1, s.cluster.node.gpus);
  for (std::size_t i = 0; i < w.training.size(); ++i) {
    const jobs::TrainingJob& job = w.training[i];
    const train::TrainingResult alone =
        train::simulate_training_step(job.spec, s.accelerator, s.cluster, s.collectives, s.seed, {false, &cache});
    if (!alone.simulated) {
      char found[128];
      std::snprintf(found, sizeof found, "%.1f GB per rank on stage %d, of the %.1f GB usable",
                    alone.memory.peak_bytes / 1e9, alone.memory.peak_stage, alone.memory.capacity_bytes / 1e9);
      throw scenario::ScenarioError(w.training_at[i], "workload.training_jobs[" + std::to_string(i) + "]",
                                    "a strategy whose ranks fit in the accelerator's memory", found,
                                    "shard more (parallel.tp, pp, zero) or recompute more");
    }
    report.modelled.push_back(jobs::modelled_step(alone, job.steps));
    report.alone.push_back({alone.step_seconds, alone.mfu, alone.tokens_per_s});
    std::vector<std::int32_t> first_nodes;
    for (std::int32_t n = 0; n * per_node < job.spec.gpus; ++n) first_nodes.push_back(n);
    report.reference_rate.push_back(fabric.ring_rates({&first_nodes, 1}).front());
    const double run_ns = std::ceil(static_cast<double>(job.steps) * alone.step_seconds * 1e9);
    if (!(run_ns < static_cast<double>(sim::SimTime::max().ns()))) {
      throw scenario::ScenarioError(
          w.training_at[i], "workload.training_jobs[" + std::to_string(i) + "].steps",
          "a run that ends within the clock (292 years)",
          std::to_string(job.steps) + " steps of " + std::to_string(alone.step_seconds) + " s");
    }
    w.jobs[i].run = sim::SimTime::from_ns(static_cast<std::int64_t>(run_ns));
    w.job_estimates[i] = w.jobs[i].run;
  }
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
    // A modelled job's run beside its neighbours may exceed its run alone (j.run): slowdowns
    // measure the response against the run alone, utilisation counts the GPUs as held.
    const double response_s = (r.end - j.submit).to_seconds();
    wait.add(wait_s);
    bounded += std::max(1.0, response_s / std::max(j.run.to_seconds(), kBoundedSlowdownFloorS));
    jct += response_s;
    gpu_seconds += r.executed.to_seconds() * j.gpus;
    last_end = std::max(last_end, r.end);
    s.mean_interference += r.interference;
    s.max_interference = std::max(s.max_interference, r.interference);
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
  s.mean_interference /= n;
  s.mean_jct_s = jct / n;
  // The timeline holds the state after each change: each sample lasts until the next.
  double busy_while_waiting = 0;
  for (std::size_t k = 0; k + 1 < run.timeline.size(); ++k) {
    const jobs::ClusterSample& c = run.timeline[k];
    s.max_queued = std::max(s.max_queued, c.queued);
    if (c.queued == 0) continue;
    const double dt = (run.timeline[k + 1].at - c.at).to_seconds();
    s.waiting_time_s += dt;
    busy_while_waiting += dt * static_cast<double>(c.busy_gpus + c.service_gpus);  // services' GPUs are allocated too
  }
  if (s.waiting_time_s > 0) s.allocation_ratio = busy_while_waiting / (s.waiting_time_s * run.total_gpus);
  return s;
}

namespace {

// Elastic training jobs (min_gpus): each shrinks by whole model-parallel groups, and its step at
// a width is the training model's, simulated when first asked for, the global batch kept (more
// micro-batches per data-parallel rank). A width the strategy cannot take (its batch does not
// divide, its ranks do not fit in memory) is 0.
void add_elastic_jobs(const JobsReport& report, jobs::JobClusterSpec& spec) {
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  if (std::none_of(w.training_min_gpus.begin(), w.training_min_gpus.end(), [](std::int32_t g) { return g > 0; }))
    return;
  spec.min_gpus = w.training_min_gpus;
  for (const jobs::TrainingJob& job : w.training) {
    const train::ParallelSpec& p = job.spec.parallel;
    spec.granule.push_back(p.tp * p.pp * p.cp);
  }
  auto cache = std::make_shared<std::map<std::pair<std::uint32_t, std::int32_t>, double>>();
  auto comms = std::make_shared<train::CommsCache>();
  spec.step_at = [&s, cache, comms](std::uint32_t job, std::int32_t gpus) {
    const auto key = std::make_pair(job, gpus);
    if (const auto it = cache->find(key); it != cache->end()) return it->second;
    train::TrainingSpec t = s.jobs.training[job].spec;
    const int model_ranks = t.parallel.tp * t.parallel.pp * t.parallel.cp;
    double step_s = 0;
    if (gpus > 0 && gpus % model_ranks == 0) {
      t.gpus = gpus;
      t.parallel.dp = gpus / model_ranks;
      try {
        train::check(t);
        const train::TrainingResult r =
            train::simulate_training_step(t, s.accelerator, s.cluster, s.collectives, s.seed, {false, comms.get()});
        if (r.simulated) step_s = r.step_seconds;
      } catch (const sim::SpecError&) {
        step_s = 0;
      }
    }
    (*cache)[key] = step_s;
    return step_s;
  };
}

// With scheduler.checkpoint_tier: each training job's checkpoint (sharded, as Megatron's
// distributed checkpoint writes it: rel::checkpoint_times, the whole-run model's own timing) on
// that tier: its write is what the job spends before its GPUs free, its read adds to its restart.
void add_checkpoint_times(JobsReport& report, jobs::JobClusterSpec& spec) {
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  if (w.checkpoint_tier.empty()) return;
  const auto tier = std::find_if(s.storage.begin(), s.storage.end(),
                                 [&](const storage::TierSpec& t) { return t.name == w.checkpoint_tier; });
  const int per_node = std::max(1, s.cluster.node.gpus);
  for (const jobs::TrainingJob& job : w.training) {
    const train::MemoryReport memory = train::step_memory(job.spec, s.accelerator);
    const train::CheckpointSize size = train::checkpoint_size(job.spec, memory, per_node, true);
    const int nodes = (job.spec.gpus + per_node - 1) / per_node;
    const rel::CheckpointTimes t = rel::checkpoint_times(*tier, s.cluster, nodes, size, job.spec.gpus, s.seed);
    report.checkpoints.push_back({size.bytes, t.write_s, t.restore_s});
    spec.checkpoint_save_of.push_back(sim::SimTime::from_ns(std::llround(t.write_s * 1e9)));
    spec.restore_of.push_back(sim::SimTime::from_ns(std::llround(t.restore_s * 1e9)));
  }
}

// The scenario's services beside its jobs on one engine (jobs::run_shared_cluster): each service's
// figures as an inference scenario of its own would give them, from its own copy of the scenario.
void run_with_services(JobsReport& report, jobs::JobClusterSpec spec, unsigned threads) {
  scenario::Scenario& s = report.scenario;
  spec.checkpoint_save = s.jobs.checkpoint_save;
  add_elastic_jobs(report, spec);
  add_checkpoint_times(report, spec);
  // Each service's scenario: this one with the service as its workload (and not the jobs).
  std::vector<scenario::JobsWorkload::Service> services = std::move(s.jobs.services);
  scenario::JobsWorkload jobs_workload = std::move(s.jobs);
  std::vector<infer::IterationModel> models;
  std::vector<jobs::SharedService> shared;
  models.reserve(services.size());
  bool apart = true;
  for (const auto& service : services) {
    InferenceReport& r = report.services.emplace_back();
    r.scenario = s;
    r.scenario.workload = scenario::WorkloadKind::kInference;
    r.scenario.inference = service.workload;
    r.scenario.expectations.clear();
    r.shared = true;
    models.push_back(replica_model(r.scenario));
    alone_times(r, models.back());
  }
  s.jobs = std::move(jobs_workload);
  s.jobs.services = std::move(services);
  for (std::size_t k = 0; k < report.services.size(); ++k) {
    InferenceReport& r = report.services[k];
    const scenario::InferenceWorkload& w = r.scenario.inference;
    infer::ServiceSpec service = service_spec(r.scenario);
    r.model_load = service.autoscaler.load;
    apart = apart && w.dispatch_delay > sim::SimTime::zero();
    shared.push_back({w.requests, std::move(service), &models[k], s.jobs.services[k].priority, w.gpus_per_replica()});
  }
  sim::RunOptions options;
  // The parallel scheduler needs every service's dispatch delay as its lookahead (service.hpp).
  if (threads > 1 && apart) {
    options.scheduler = sim::Scheduler::kParallel;
    options.threads = threads;
  }
  jobs::SharedClusterRun run =
      jobs::run_shared_cluster(s.jobs.jobs, s.jobs.job_estimates, std::move(spec), shared, s.seed, options);
  report.run = std::move(run.jobs);
  for (std::size_t k = 0; k < report.services.size(); ++k) {
    InferenceReport& r = report.services[k];
    const scenario::InferenceWorkload& w = r.scenario.inference;
    r.run = std::move(run.services[k]);
    r.metrics = infer::summarize(w.requests, r.run, w.slo);
    r.gpu_hours = r.run.replica_seconds * w.gpus_per_replica() / 3600;
  }
}

}  // namespace

JobsReport evaluate_jobs(scenario::Scenario scenario, unsigned threads) {
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
  const topo::Topology topology = topo::build_cluster(s.cluster);
  FabricPlace where = fabric_place(s.cluster, topology);
  spec.leaf_of_node = std::move(where.leaf);
  spec.pod_of_node = std::move(where.pod);
  const int domain = std::max(1, s.cluster.node.nvlink_domain_nodes);
  for (int n = 0; n < s.cluster.nodes; ++n) spec.island_of_node.push_back(n / domain);
  spec.scheduler = s.jobs.scheduler;
  spec.placement = s.jobs.placement;
  spec.predict_from_history = s.jobs.estimates == scenario::EstimateSource::kPredicted;
  spec.restart_overhead = s.jobs.restart_overhead;
  spec.team_from_user = s.jobs.team_from_user;
  std::optional<jobs::FabricShare> fabric;
  if (!s.jobs.training.empty()) {
    fabric.emplace(topology, s.seed);
    simulate_alone(report, *fabric);
    spec.modelled = report.modelled;
    spec.reference_rate = report.reference_rate;
    spec.fabric = &*fabric;
  }
  if (!s.jobs.training_priority.empty()) spec.priority = s.jobs.training_priority;
  if (s.jobs.services.empty()) {
    report.run = jobs::run_job_cluster(s.jobs.jobs, s.jobs.job_estimates, spec, s.seed);
  } else {
    run_with_services(report, std::move(spec), threads);
  }
  report.summary = summarize_jobs(s.jobs, report.run);
  return report;
}

}  // namespace fathom::report
