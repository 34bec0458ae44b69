// An inference service over time on the engine (sim/): a router logical process that receives
// the requests at their arrival times and sends each to a replica, and one logical process per
// replica that runs its engine (replica_engine.hpp) iteration after iteration while it has work.
// A replica tells the router when a request finishes (for least-outstanding routing).
//
// With a dispatch delay (the hop from the load balancer to a replica and back) each replica is a
// group of its own and the delay is the engine's lookahead, so the parallel scheduler runs the
// replicas side by side; without one, router and replicas are one group. With disaggregated
// pools on a fabric, the network's logical process (net::FabricLp) carries the KV transfers and
// joins the router's group. Either way the same scenario and seed give the same outcomes on any
// thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "models/network/fabric_lp.hpp"
#include "models/workloads/inference/iteration_model.hpp"
#include "models/workloads/inference/replica_engine.hpp"
#include "models/workloads/inference/requests.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "models/workloads/jobs/gpu_claims.hpp"
#include "sim/simulation.hpp"
#include "sim/time.hpp"

namespace fathom::infer {

// A Kubernetes HorizontalPodAutoscaler over the replicas (the algorithm of the Kubernetes
// documentation, "Horizontal Pod Autoscaling"): every `interval` it reads the metric averaged over
// the ready replicas, wants ceil(current x metric / target) replicas (nothing when the ratio is
// within `tolerance` of 1), takes the lowest recommendation of the last `up_window` when that is
// above the current count and the highest of the last `down_window` when below (the stabilization
// windows), and clamps to [min_replicas, max_replicas]. A new replica is ready after `startup`
// plus the model's load from storage (load[k - 1] when k replicas start together); one scaled
// down takes no new requests and stops when its last request ends. Never to zero.
enum class ScaleMetric {
  kUtilization,  // share of the interval a replica spent in iterations (a GPU-utilization metric)
  kOutstanding,  // requests admitted and not finished, per replica (a concurrency metric)
};

struct AutoscalerSpec {
  bool enabled = false;
  ScaleMetric metric = ScaleMetric::kUtilization;
  double target = 0.7;
  double tolerance = 0.1;
  int min_replicas = 1;
  int max_replicas = 1;
  sim::SimTime interval = sim::SimTime::from_ns(15'000'000'000);      // the HPA's sync period
  sim::SimTime up_window = sim::SimTime::zero();                      // scale-up stabilization
  sim::SimTime down_window = sim::SimTime::from_ns(300'000'000'000);  // scale-down stabilization
  sim::SimTime startup;            // a replica's start before it loads the model (container, engine)
  std::vector<sim::SimTime> load;  // load[k - 1]: the model's load when k replicas start at once
};

// Disaggregated serving (Splitwise, ISCA 2024; DistServe, OSDI 2024): a pool of prefill replicas
// runs every prompt to its first token, then the request's keys and values move to a decode
// replica, which generates the rest. A transfer leaves its prefill replica over the replica's own
// links: NVLink when the decode replica shares its node, else its GPUs' NICs and the fabric; one
// prefill replica's transfers go one after another at that rate, plus a latency each; or, with a
// fabric, as flows on the network model.
struct DisaggregationSpec {
  int prefill_replicas = 0;  // 0: every replica runs both phases
  ServingSpec prefill;       // the prefill pool's engine (its tp and limits)
  std::int64_t prefill_kv_blocks = 0;
  double kv_bytes_per_token = 0;      // one token's keys and values over every layer and head
  double same_node_bytes_per_s = 0;   // a prefill replica's send rate to a decode replica on its node
  double cross_node_bytes_per_s = 0;  // to one on another node
  sim::SimTime transfer_latency;
  // The node of each replica: the decode replicas (serving.replicas, or the autoscaler's
  // max_replicas) first, then the prefill replicas.
  std::vector<std::int32_t> node_of;
  // With a fabric, the transfers are flows on the flow-level network instead (net::FabricLp): the
  // connection from prefill replica p to decode replica d is kv_connections[p x decode + d], its
  // flows from the prefill replica's GPUs to the decode replica's, sharing the bytes equally and
  // every link max-min fairly with the other transfers. The rates and latency above are unused.
  std::shared_ptr<const topo::Topology> fabric;
  std::vector<net::Connection> kv_connections;
  bool enabled() const { return prefill_replicas > 0; }
};

struct ServiceSpec {
  ServingSpec serving;        // serving.replicas: those ready at time 0 (the decode pool when disaggregated)
  AutoscalerSpec autoscaler;  // over serving's replicas
  DisaggregationSpec disaggregation;
  SwapLink swap;                // with serving.preemption = kSwap (each replica's own host memory and PCIe)
  std::int64_t kv_blocks = 0;   // blocks of each replica's cache (kv_budget)
  sim::SimTime dispatch_delay;  // router to replica, and replica to router
  // Iterations each replica keeps for timelines, its first ones (0: none): a long run has
  // millions, more than a timeline viewer can open.
  std::int64_t record_iterations = 0;
};

// What happened to one request. Times are absolute (the run's clock); a request that did not
// finish before the run ended has end < 0.
struct RequestOutcome {
  sim::SimTime first_token = sim::SimTime::from_ns(-1);
  sim::SimTime end = sim::SimTime::from_ns(-1);
  std::int32_t replica = -1;          // the replica that generated its tokens (the decode replica)
  std::int32_t prefill_replica = -1;  // disaggregated: the prefill replica (numbered after the decode ones)
  sim::SimTime kv_arrival = sim::SimTime::from_ns(-1);  // disaggregated: its KV cache on the decode replica
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
  std::int64_t swapped_blocks = 0;  // blocks copied to host memory (preemption: swap)
  IterationTime time;               // summed over iterations, by part
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

// The replicas at one instant: ready ones take requests; starting ones load; draining ones finish
// what they hold.
struct ReplicaCount {
  sim::SimTime time;
  std::int32_t ready = 0, starting = 0, draining = 0;
  std::int32_t waiting = 0;  // on a shared cluster: asked for GPUs, not yet given them
};

struct ServiceRun {
  std::vector<RequestOutcome> requests;      // by request, as given
  std::vector<ReplicaStats> replicas;        // by replica: the decode (or only) pool, then the prefill pool
  std::vector<IterationRecord> iterations;   // recorded ones, by replica then time
  std::vector<ReplicaCount> replica_counts;  // at time 0 and after every change (decode pool when disaggregated)
  double replica_seconds = 0;                // those replicas up (starting, ready or draining) x time
  sim::SimTime end;                          // the last event's time
  std::uint64_t events = 0;
  std::uint64_t fingerprint = 0;
};

// On a shared cluster (jobs/gpu_claims.hpp): the cluster's logical process, which gives replicas
// their GPUs, and this service's number there. The replicas ready at time 0 hold theirs already;
// one the autoscaler adds waits for them before it starts, and one that stops hands them back.
// When its last request ends the service leaves the cluster, every GPU handed back.
struct ClaimLink {
  sim::LpId cluster = 0;
  std::uint32_t service = 0;
};

// A service's logical processes on an engine that may hold other models (a shared cluster's):
// the router in `group`, the replicas in groups of their own when the service has a dispatch
// delay (the engine's lookahead then), else in `group` too. Checks its input as run_service does.
class ServiceOnEngine {
 public:
  ServiceOnEngine(std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
                  const IterationModel* prefill_model = nullptr, std::optional<ClaimLink> claims = std::nullopt);
  ~ServiceOnEngine();
  ServiceOnEngine(const ServiceOnEngine&) = delete;
  ServiceOnEngine& operator=(const ServiceOnEngine&) = delete;

  // Adds the service's logical processes to `simulation`; returns the router's id.
  sim::LpId add_to(sim::Simulation& simulation, std::uint32_t group);
  // What happened, once the engine has run (and before it is destroyed). Once.
  ServiceRun collect(const sim::RunResult& result);

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Runs `requests` (in arrival order) through spec.serving.replicas replicas (up to the
// autoscaler's max_replicas over time), each timing its
// iterations with a copy of `model`. Throws std::invalid_argument for requests out of order and
// sim::ModelError when a replica holds work it cannot schedule (a request larger than its cache).
// A disaggregated service times its prefill replicas with `prefill_model` (required then).
ServiceRun run_service(std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
                       std::uint64_t seed, const sim::RunOptions& options = {},
                       const IterationModel* prefill_model = nullptr);

}  // namespace fathom::infer
