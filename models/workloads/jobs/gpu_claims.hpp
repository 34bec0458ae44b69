// Inference services beside jobs on one cluster (docs/jobs.md, "Services beside training"): the
// messages between a service's router (models/workloads/inference/service.hpp) and the cluster's
// logical process (job_cluster.hpp), which owns every GPU.
//
//   router -> cluster  kClaim        a replica wants its GPUs (the autoscaler scaled up)
//                      kCancelClaim  it no longer does (scaled down before they came)
//                      kRelease      a replica has stopped: its GPUs are free
//   cluster -> router  kGranted      the replica's GPUs are its own: it starts (loads the model)
//
// The cluster serves claims before any waiting job, in the order they came. A claim no free GPUs
// hold preempts jobs of lower priority than its service (claim_victims.hpp): each checkpoints,
// holding its GPUs for the cluster's checkpoint_save, then frees them to the replica and waits
// to resume (paying restart_overhead when it starts again). A claim that even that cannot hold
// waits for GPUs to free. Router and cluster are one group: the messages take no time.
#pragma once

#include <cstdint>
#include <vector>

#include "models/placement/gpu_pool.hpp"
#include "sim/event.hpp"
#include "sim/time.hpp"

namespace fathom::jobs {

enum ClaimKind : sim::EventKind { kClaim = 100, kCancelClaim, kRelease, kGranted };

// Which replica of which service a claim message is about.
struct ClaimOf {
  std::uint32_t service;
  std::uint32_t replica;
};

// A service as the cluster sees it.
struct Claimant {
  std::int32_t gpus_per_replica = 1;
  int priority = 1;  // preempts jobs of lower priority
  int initial = 0;   // replicas holding GPUs at time 0, placed before any job
  sim::LpId lp = 0;  // its router, where grants go
};

// One claim, for the outputs and the tests.
struct ClaimRecord {
  std::uint32_t service = 0, replica = 0;
  sim::SimTime asked;                                // time 0 for the initial replicas
  sim::SimTime granted = sim::SimTime::from_ns(-1);  // < 0: never (cancelled, or the run ended)
  sim::SimTime released = sim::SimTime::from_ns(-1);
  std::uint32_t victims = 0;             // jobs it preempted or shrank
  std::vector<place::NodeShare> shares;  // its GPUs, once granted
};

}  // namespace fathom::jobs
