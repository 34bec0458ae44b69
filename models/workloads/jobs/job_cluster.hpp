// A cluster over time running a trace of opaque jobs: each asks for whole GPUs and runs for its
// traced run time wherever it is placed. One logical process on the engine holds the cluster:
// jobs arrive at their submit times, a scheduler (models/scheduling/) picks which waiting jobs
// start whenever a job arrives or ends, a placement policy (models/placement/) picks their
// nodes, and each job ends its run time later.
//
// All arrivals and ends at one instant are handled before the scheduler decides, once, so the
// decision sees the cluster as it is at that instant, whatever the order of the events.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "models/placement/gpu_pool.hpp"
#include "models/placement/placement.hpp"
#include "models/scheduling/scheduler.hpp"
#include "models/workloads/jobs/fabric_share.hpp"
#include "models/workloads/jobs/gpu_claims.hpp"
#include "models/workloads/jobs/trace_job.hpp"
#include "models/workloads/jobs/training_job.hpp"
#include "sim/simulation.hpp"
#include "sim/time.hpp"

namespace fathom::jobs {

struct JobClusterSpec {
  std::vector<std::int32_t> gpus_per_node;
  std::vector<std::int32_t> leaf_of_node;    // a number per node; nodes with equal numbers share a leaf switch
  std::vector<std::int32_t> island_of_node;  // NVLink island (empty: each node its own)
  std::vector<std::int32_t> pod_of_node;     // pod of a 3-tier fabric (empty: one pod)
  sched::SchedulerSpec scheduler;
  place::PlacementPolicy placement = place::PlacementPolicy::kFirstFit;
  // Tell the scheduler, instead of the given estimate, a prediction from the user's history
  // (Tsafrir, Etsion and Feitelson, "Backfilling using system-generated predictions rather than
  // user runtime estimates", IEEE TPDS 2007): the mean run time of the user's last two jobs to
  // finish (the last one when only one has), never above the given estimate, which is the user's
  // request; the request itself while the user has no finished job. A job that outlives its
  // prediction is then expected to run to its request (the paper's simplest correction).
  bool predict_from_history = false;
  // The team a job belongs to, for quotas: the trace's group, or its user.
  bool team_from_user = false;
  // What a preempted job pays when it starts again: restoring its checkpoint, reloading and
  // warming up, added to its remaining work.
  sim::SimTime restart_overhead;
  // Modelled training jobs (training_job.hpp): one entry per job, or none when every job is
  // opaque. A job with modelled[j].steps > 0 on several nodes runs its steps at the step time
  // its neighbours leave it, recomputed whenever a modelled job on several nodes starts or ends:
  // `fabric` shares the links among them and reference_rate[j] is job j's ring rate where its
  // step was simulated. A modelled job on one node runs its traced run time (steps x step).
  std::vector<ModelledStep> modelled;
  std::vector<double> reference_rate;
  FabricShare* fabric = nullptr;
  // Inference services beside the jobs (gpu_claims.hpp), which claim GPUs for their replicas and
  // preempt jobs of lower priority. priority[j]: job j's (empty: every job 0). A job a claim
  // preempts holds its GPUs checkpoint_save longer, then waits in the queue again. Only the
  // queue policies (scheduler.policy: queue) run beside services.
  std::vector<Claimant> claimants;
  std::vector<int> priority;
  sim::SimTime checkpoint_save;
  // Per job, when the cluster knows them (its checkpoint written to and read from a storage
  // tier): checkpoint_save_of[j] replaces checkpoint_save, and restore_of[j] adds to
  // restart_overhead. Empty: the scalars for every job.
  std::vector<sim::SimTime> checkpoint_save_of, restore_of;
  // Elastic training jobs: min_gpus[j] > 0 lets a claim shrink modelled job j, down to min_gpus[j]
  // GPUs, by whole model-parallel groups of granule[j] GPUs on the replica's node, instead of
  // stopping it: it writes its checkpoint (checkpoint_save), gives those GPUs up, and runs on
  // after its restart (restart_overhead) at step_at(j, gpus), its step alone at that width
  // (seconds; <= 0: a width it cannot take). It grows back to all its GPUs, with another
  // checkpoint and restart, at a decision that leaves them free with no job or claim waiting.
  std::vector<std::int32_t> min_gpus, granule;
  std::function<double(std::uint32_t job, std::int32_t gpus)> step_at;
};

// What happened to one job.
struct JobRun {
  sim::SimTime start, end;        // its first start, its end
  sim::SimTime last_start;        // its last run's start (its first start unless preempted)
  std::uint32_t first_share = 0;  // its last run's shares are shares[first_share, first_share + nodes)
  std::int32_t nodes = 0;
  std::int32_t leaves = 0;  // leaf switches its nodes sit on
  double interference = 1;  // its time running over its run alone (1 for an opaque job)
  sim::SimTime executed;    // time it ran, in all its runs
  std::uint32_t preemptions = 0;
  std::uint32_t shrinks = 0, grows = 0;  // an elastic job's changes of width
};

// One run of a job that a preemption, or an elastic job's change of width, ended (a job preempted
// n times has n of them; its last run is in its JobRun: last_start to end).
struct JobSegment {
  std::uint32_t job = 0;
  sim::SimTime start, end;
  std::uint32_t first_share = 0;  // its nodes: shares[first_share, first_share + nodes)
  std::int32_t nodes = 0;
};

// A modelled job's step time from `at` on, as its neighbours left it.
struct StepChange {
  sim::SimTime at;
  std::uint32_t job = 0;
  double step_s = 0;
  double slowdown = 1;  // of its data-parallel collectives (FabricShare)
};

// The cluster after a decision: one sample per instant at which anything changed.
struct ClusterSample {
  sim::SimTime at;
  std::int64_t busy_gpus = 0;      // held by jobs
  std::int64_t service_gpus = 0;   // held by services' replicas, or for them while jobs checkpoint
  std::int64_t stranded_gpus = 0;  // free GPUs on nodes partly in use
  std::uint32_t queued = 0;
  std::uint32_t running = 0;
};

struct JobClusterRun {
  std::vector<JobRun> jobs;              // by the index of the job in the input
  std::vector<place::NodeShare> shares;  // every run's nodes, in the order the runs started
  std::vector<JobSegment> earlier_runs;  // runs ended by preemption, in the order they ended
  std::vector<ClusterSample> timeline;   // in time order
  std::vector<sim::SimTime> estimates;   // what the scheduler was told of each job
  std::vector<StepChange> step_changes;  // modelled jobs on several nodes, in time order
  std::vector<ClaimRecord> claims;       // services' claims, in the order they came
  std::int64_t total_gpus = 0;
  std::uint64_t decisions = 0;         // instants at which the scheduler decided
  std::uint64_t overran_estimate = 0;  // jobs that ran longer than their estimate
  std::uint64_t preemptions = 0;
  std::uint64_t shrinks = 0, grows = 0;  // elastic jobs' changes of width
  // GPU time jobs spent writing checkpoints before they stopped or changed width, and restarting
  // (a resumed job's restart_overhead, an elastic job's restart at its new width).
  double checkpoint_gpu_s = 0, restart_gpu_s = 0;
  std::uint64_t events = 0;
  std::uint64_t fingerprint = 0;  // the engine's: equal runs have equal fingerprints
};

// Every run of every job: the runs preemptions ended and each job's last run, by start time
// (then job). For outputs that draw the runs; a run without preemptions has one per job.
std::vector<JobSegment> all_runs(const JobClusterRun& run);

// Other models on the cluster's engine: the services of spec.claimants. `add` puts their logical
// processes beside the cluster's (which is `cluster`, in group `group`); `collect` reads them after
// the run, while they still exist.
struct ClusterTenants {
  std::function<void(sim::Simulation&, sim::LpId cluster, std::uint32_t group)> add;
  std::function<void(const sim::RunResult&)> collect;
  sim::RunOptions options;
};

// Runs `jobs` (in submit order, each asking for 1 to total GPUs) with the scheduler seeing
// `estimates` (one per job) as their run times. Throws std::invalid_argument for jobs out of
// order or out of size (the scenario loader refuses or drops them first, with their lines), and
// for claimants without tenants or beside a preemptive policy.
JobClusterRun run_job_cluster(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates,
                              const JobClusterSpec& spec, std::uint64_t seed, const ClusterTenants* tenants = nullptr);

}  // namespace fathom::jobs
