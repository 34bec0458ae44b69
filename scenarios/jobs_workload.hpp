// `workload: {kind: jobs}`: a trace of jobs run on the cluster by a scheduler and a placement
// policy (docs/jobs.md). The loader reads the trace, takes the window the scenario names, scales
// its arrival rate and applies the oversize policy, so that what reaches the model is a list of
// jobs in submit order that all fit the cluster, with the scheduler's estimate of each.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/placement/placement.hpp"
#include "models/placement/share_placement.hpp"
#include "models/scheduling/scheduler.hpp"
#include "models/workloads/jobs/job_generator.hpp"
#include "models/workloads/jobs/trace_job.hpp"
#include "models/workloads/jobs/training_job.hpp"
#include "scenarios/alibaba_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/inference_workload.hpp"
#include "scenarios/job_csv_reader.hpp"
#include "scenarios/swf_reader.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

class MapReader;

enum class TraceFormat {
  kSwf,
  kItp,
  kCsv,
  kAlibaba,
  kSynthetic,
  kTraining,  // `training_jobs`: modelled training jobs listed in the scenario
};
enum class EstimateSource {
  kTrace,      // the trace's requested times (a job without one: its run time, counted)
  kExact,      // the run times themselves: a scheduler with perfect knowledge
  kPredicted,  // predicted from the user's last finished jobs, capped by the request (JobClusterSpec)
};
enum class OversizePolicy {
  kError,  // a job larger than the cluster stops the load at its line
  kDrop,   // such jobs are left out, counted and reported
};

struct JobsWorkload {
  // As the scenario wrote it.
  TraceFormat format = TraceFormat::kSwf;
  std::string file;            // resolved against the scenario's folder
  std::string member = "all";  // itp: one clusterNN.csv, or all of them
  JobCsvColumns columns;       // csv
  std::int64_t first_job = 1;  // 1-based position of the window's first job among the trace's usable jobs
  std::int64_t window = 0;     // jobs in the window; 0: to the end of the trace
  double load = 1.0;           // arrival rate multiplier: inter-arrival times are divided by it
  OversizePolicy oversize = OversizePolicy::kError;
  jobs::JobGeneratorSpec generator;  // synthetic: the arrival process and the distributions
  std::int64_t resample = 0;         // > 0: that many jobs drawn from the window (resample_jobs)
  EstimateSource estimates = EstimateSource::kTrace;
  sched::SchedulerSpec scheduler;
  place::PlacementPolicy placement = place::PlacementPolicy::kFirstFit;
  sim::SimTime restart_overhead;  // a preempted job's cost to start again (preemptive policies)
  bool team_from_user = false;    // quota: a job's team is its user, not its group
  // alibaba: the packing experiment (jobs::run_packing) instead of a run over time.
  std::string nodes_file;  // the node list, resolved
  double fill = 0;         // arrived GPU demand at which arrivals stop, as a fraction of the cluster's GPUs
  place::SharePolicy share_policy = place::SharePolicy::kFirstFit;
  // training_jobs: the modelled jobs, each with its submit time and the place it was written.
  std::vector<jobs::TrainingJob> training;
  std::vector<sim::SimTime> training_submit;
  std::vector<std::int32_t> training_team;      // its `team`, or -1
  std::vector<int> training_priority;           // its `priority` (0 unless set)
  std::vector<std::int32_t> training_min_gpus;  // its `min_gpus` (elastic, beside services), or 0
  std::vector<Location> training_at;
  // `services`: inference services beside the jobs (docs/jobs.md, "Services beside training"),
  // read by the scenario loader before the rest of the workload.
  struct Service {
    std::string name;
    int priority = 1;  // preempts jobs of lower priority (a trace's jobs: 0)
    InferenceWorkload workload;
    Location at;
  };
  std::vector<Service> services;
  sim::SimTime checkpoint_save;  // scheduler.checkpoint_save: a job a service preempts writes its checkpoint
  // scheduler.checkpoint_tier: a training job's checkpoint write and read are timed on this tier
  // (a name under `storage:`) instead: checkpoint_save is then for the trace's jobs only.
  std::string checkpoint_tier;

  // What the loader made of it.
  std::vector<jobs::TraceJob> jobs;               // the window, in submit order, its first submit at time 0
  std::vector<sim::SimTime> job_estimates;        // what the scheduler is told, one per job
  std::int64_t trace_jobs = 0;                    // usable jobs in the whole trace
  std::vector<TraceTally> left_out;               // the trace's records not simulated, by reason
  std::int64_t without_estimate = 0;              // jobs whose estimate is their run time for want of one
  std::optional<std::int64_t> logged_processors;  // SWF: the logged machine's size
  sim::SimTime window_offset;                     // the window's first submit time in the trace's own clock
  std::vector<jobs::ShareTask> share_tasks;       // alibaba: the pods, every one
  AlibabaNodes share_nodes;                       // alibaba: the node list

  bool is_packing() const { return format == TraceFormat::kAlibaba; }
};

// `written`, a path in the scenario, resolved against the scenario file's folder.
std::string resolve(const std::string& scenario_file, const std::string& written);

// Reads `workload` (kind: jobs) into `w`: its trace, or, when w.training already holds the
// scenario's `training_jobs` (the scenario loader reads those, as it reads training workloads),
// those jobs. Resolves the trace file against `scenario_file`'s folder and records each key's
// location in `locations`. `cluster_nodes` and `cluster_gpus` are the cluster's, for the
// oversize policy and the node list; `seed` draws synthetic and resampled traces. Throws
// ScenarioError.
void read_jobs_workload(JobsWorkload& w, MapReader& workload, const std::string& scenario_file, int cluster_nodes,
                        std::int64_t cluster_gpus, std::uint64_t seed, std::map<std::string, Location>& locations);

}  // namespace fathom::scenario
