// An inference service over time on the engine (sim/): a router logical process that receives
// the requests at their arrival times and sends each to a replica, and one logical process per
// replica that runs its engine (replica_engine.hpp) iteration after iteration while it has work.
// A replica tells the router when a request finishes (for least-outstanding routing).
//
// With a dispatch delay (the hop from the load balancer to a replica and back) each replica is a
// group of its own and the delay is the engine's lookahead, so the parallel scheduler runs the
// replicas side by side; without one, router and replicas are one group. Either way the same
// scenario and seed give the same outcomes on any thread count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/workloads/inference/iteration_model.hpp"
#include "models/workloads/inference/requests.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "sim/simulation.hpp"
#include "sim/time.hpp"

namespace fathom::infer {

struct ServiceSpec {
  ServingSpec serving;
  std::int64_t kv_blocks = 0;      // blocks of each replica's cache (kv_budget)
  sim::SimTime dispatch_delay;     // router to replica, and replica to router
  bool record_iterations = false;  // keep every iteration (for timelines)
};

// What happened to one request. Times are absolute (the run's clock); a request that did not
// finish before the run ended has end < 0.
struct RequestOutcome {
  sim::SimTime first_token = sim::SimTime::from_ns(-1);
  sim::SimTime end = sim::SimTime::from_ns(-1);
  std::int32_t replica = -1;
  std::int32_t preemptions = 0;
  bool finished() const { return end.ns() >= 0; }
};

struct ReplicaStats {
  std::int64_t iterations = 0;
  double busy_s = 0;             // time spent in iterations
  double block_seconds = 0;      // blocks held x time, over iterations (a sequence holds none while idle)
  std::int64_t kv_blocks = 0;    // the cache's size
  std::int64_t peak_blocks = 0;  // most blocks held at once
  std::int64_t tokens = 0;       // tokens processed (prefill and decode)
  std::int64_t sequences = 0;    // sum of batch sizes over iterations
  std::int64_t preemptions = 0;
  IterationTime time;  // summed over iterations, by part
};

// One iteration, for timelines.
struct IterationRecord {
  sim::SimTime start;
  sim::SimTime duration;
  std::int32_t replica = 0;
  std::int32_t sequences = 0;
  std::int32_t tokens = 0;
  std::int64_t used_blocks = 0;
};

struct ServiceRun {
  std::vector<RequestOutcome> requests;  // by request, as given
  std::vector<ReplicaStats> replicas;
  std::vector<IterationRecord> iterations;  // recorded ones, by replica then time
  sim::SimTime end;                         // the last event's time
  std::uint64_t events = 0;
  std::uint64_t fingerprint = 0;
};

// Runs `requests` (in arrival order) through spec.serving.replicas replicas, each timing its
// iterations with a copy of `model`. Throws std::invalid_argument for requests out of order and
// sim::ModelError when a replica holds work it cannot schedule (a request larger than its cache).
ServiceRun run_service(std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
                       std::uint64_t seed, const sim::RunOptions& options = {});

}  // namespace fathom::infer
