// Training and inference on one cluster (docs/jobs.md, "Services beside training"): the jobs'
// logical process (job_cluster.hpp) and each service's router and replicas
// (inference/service.hpp) on one engine. The cluster owns the GPUs; a service's autoscaler claims
// them for the replicas it adds, preempting jobs of lower priority, and hands them back when a
// replica stops and when the service's last request ends (gpu_claims.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/workloads/inference/service.hpp"
#include "models/workloads/jobs/job_cluster.hpp"

namespace fathom::jobs {

struct SharedService {
  std::span<const infer::Request> requests;
  infer::ServiceSpec spec;  // not disaggregated
  const infer::IterationModel* model = nullptr;
  int priority = 1;  // preempts jobs of lower priority
  std::int32_t gpus_per_replica = 1;
};

struct SharedClusterRun {
  JobClusterRun jobs;
  std::vector<infer::ServiceRun> services;  // by service, as given
};

// Runs the jobs (as run_job_cluster, whose spec.claimants this fills) and the services together.
// `options` picks the engine's scheduler: the parallel one needs every service's dispatch delay
// (its lookahead); the outcome is the same on any thread count.
SharedClusterRun run_shared_cluster(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates,
                                    JobClusterSpec spec, std::span<const SharedService> services, std::uint64_t seed,
                                    const sim::RunOptions& options = {});

}  // namespace fathom::jobs
