// `simulate` for a jobs workload: the trace's jobs through the scenario's scheduler and placement
// on its cluster, and the figures a cluster operator reads from it (docs/jobs.md defines each):
// waits, slowdowns, utilisation, the allocated share of the cluster while jobs wait.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <vector>

#include "models/workloads/jobs/job_cluster.hpp"
#include "models/workloads/jobs/packing_experiment.hpp"
#include "report/inference/inference_report.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::sim {
class JsonWriter;
}  // namespace fathom::sim

namespace fathom::report {

// Bounded slowdown's floor on the run time (Feitelson et al., "Theory and practice in parallel
// job scheduling", JSSPP 1997): a job of a few seconds that waits a minute is not 30x slow.
inline constexpr double kBoundedSlowdownFloorS = 10.0;

struct JobsSummary {
  std::int64_t count = 0;
  double makespan_s = 0;   // first submit to last end
  double utilization = 0;  // GPU-seconds run / (GPUs x makespan)
  double mean_wait_s = 0, p50_wait_s = 0, p90_wait_s = 0, p99_wait_s = 0, max_wait_s = 0;
  double mean_bounded_slowdown = 0;
  double mean_jct_s = 0;  // job completion time: submit to end
  // Run time beside the neighbours over run time alone (modelled training jobs; 1 for opaque).
  double mean_interference = 0, max_interference = 0;
  // Time-weighted share of the GPUs allocated while at least one job waited; -1 when no job
  // ever waited (the question does not arise).
  double allocation_ratio = -1;
  double waiting_time_s = 0;  // how long at least one job waited, in all
  std::uint32_t max_queued = 0;
};

struct JobsReport {
  scenario::Scenario scenario;
  jobs::JobClusterRun run;  // a trace run over time
  JobsSummary summary;
  std::optional<jobs::PackingRun> packing;  // format: alibaba, the packing experiment instead
  // training_jobs: each job's step simulated alone on the cluster's first nodes (by job).
  struct Alone {
    double step_s = 0;
    double mfu = 0;
    double tokens_per_s = 0;
  };
  std::vector<jobs::ModelledStep> modelled;
  std::vector<double> reference_rate;  // its ring rate there (jobs::FabricShare), bytes/s per flow
  std::vector<Alone> alone;
  // `services`: each inference service beside the jobs, as its own report (scenario: this one
  // with the service as its workload; no expectations or cost of its own).
  std::vector<InferenceReport> services;
  // With scheduler.checkpoint_tier: each training job's checkpoint and its write and read there.
  struct Checkpoint {
    double bytes = 0, write_s = 0, restore_s = 0;
  };
  std::vector<Checkpoint> checkpoints;
};

// Runs the scenario's trace, and its services beside it. A scenario whose workload is not jobs is
// bad input (scenario::ScenarioError at workload.kind). `threads` > 1 runs the engine's parallel
// scheduler when every service has a dispatch delay (its lookahead); the outcome is the same.
JobsReport evaluate_jobs(scenario::Scenario scenario, unsigned threads = 1);

// The figures, from a run (exposed for tests).
JobsSummary summarize_jobs(const scenario::JobsWorkload& workload, const jobs::JobClusterRun& run);

// What a service's replicas asked of the cluster (its initial replicas aside): claims, those
// granted, their wait from asking to GPUs (seconds), the jobs they preempted.
struct ServiceClaims {
  int claims = 0, granted = 0, victims = 0;
  double mean_wait_s = 0, max_wait_s = 0;
};
ServiceClaims service_claims(const jobs::JobClusterRun& run, std::uint32_t service);

void write_jobs_summary(std::FILE* out, const JobsReport& report);
// The services beside the jobs: each one's figures and claims (services_writers.cpp).
void write_services_summary(std::FILE* out, const JobsReport& report);
void write_services_json(sim::JsonWriter& j, const JobsReport& report);
// Every service's requests, one row each after the service's name (--requests-out).
void write_services_requests_csv(std::ostream& out, const JobsReport& report);
// The JSON report: the scenario, the trace, the policy and the `jobs` figures (docs/report.md).
void write_jobs_json(std::ostream& out, const JobsReport& report);
// The packing experiment's parts of the two above (packing_writers.cpp).
void write_packing_summary(std::FILE* out, const JobsReport& report);
void write_packing_json(std::ostream& out, const JobsReport& report);
// One row per job (--jobs-out).
void write_jobs_csv(std::ostream& out, const JobsReport& report);
// A Perfetto timeline: a track per node with a slice per job, counters of GPUs and jobs (--trace).
void write_jobs_trace(std::ostream& out, const JobsReport& report);
// One row per instant at which the cluster changed (--timeline-out).
void write_cluster_timeline_csv(std::ostream& out, const JobsReport& report);

}  // namespace fathom::report
