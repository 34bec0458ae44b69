// Running a set of flows through the flow-level network on the engine.
//
// FlowRequest is a transfer between two endpoints of a Topology. route_flows() picks each
// flow's route once (ECMP hash of the scenario seed and the flow id, D-mod-K by destination,
// or with adaptive routing every shortest path with its fraction of the bytes), so `fathom
// topology --routes` and `fathom simulate` report the same paths. simulate_transfers() runs them on
// the network's logical process (net::FabricLp): each flow waits its route's latency (the sum of
// its links'), then shares bandwidth max-min fairly until its last byte arrives. All changes at
// one instant are applied together, then rates are recomputed once (FlowSettler).
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/flow_network.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::net {

struct FlowRequest {
  std::uint64_t id = 0;
  topo::VertexId src = 0;
  topo::VertexId dst = 0;
  double bytes = 0;
  sim::SimTime start;
};

struct RoutedFlow {
  std::vector<LinkId> route;
  sim::SimTime latency;             // sum of the route's link latencies (each times its fraction)
  std::vector<double> fractions{};  // per route link, the part of the bytes crossing it; empty: 1
};

// The ECMP hash of a flow: a function of the seed and the flow's id only.
std::uint64_t flow_hash(std::uint64_t seed, std::uint64_t flow_id);

// The ECMP hash of sub-flow j of a transfer that hashes to `hash` (a transfer split over several
// connections or queue pairs, each hashed on its own): sub-flow 0 keeps the transfer's hash.
std::uint64_t subflow_hash(std::uint64_t hash, std::uint32_t j);

// One flow from src to dst as the topology's routing mode sends it: its ECMP (or D-mod-K) route,
// or with Routing::kAdaptive every shortest path with its fraction of the bytes
// (Router::spread). The latency is the route's, a spread route's the mean over its bytes.
RoutedFlow route_one(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                     std::uint64_t hash);
// The same into `out`, reusing its vectors' capacity. Neither keeps the route in the router's
// cache (Router::route_into): every flow has its own hash, so a cache would only grow.
void route_one_into(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                    std::uint64_t hash, RoutedFlow& out);
// The same route, kept in the router's cache (Router::route) and copied into `out`: for a
// connection whose hash many transfers and many runs reuse (a collective's channel between two
// ranks, timed at every size of an nccl-tests sweep), routed once per router.
void route_connection_into(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                           std::uint64_t hash, RoutedFlow& out);

std::vector<RoutedFlow> route_flows(const topo::Topology& topology, topo::Router& router,
                                    const std::vector<FlowRequest>& flows, std::uint64_t seed);

struct FlowOutcome {
  sim::SimTime activated;  // start + route latency
  sim::SimTime finish;
};

// A link's total rate from `time` on, until its next sample.
struct LinkLoadSample {
  sim::SimTime time;
  LinkId link = 0;
  double bytes_per_s = 0;
};

struct TransferResult {
  std::vector<FlowOutcome> flows;  // in request order
  std::vector<double> link_bytes;  // bytes carried per link
  sim::SimTime makespan;           // last finish
  std::uint64_t fingerprint = 0;
  std::uint64_t events = 0;
  std::uint64_t component_updates = 0;     // max-min re-ratings
  std::uint64_t flow_rerates = 0;          // flows re-rated, summed over re-ratings
  std::uint64_t local_settles = 0;         // arrivals rated from their own links, no re-rating
  std::vector<LinkLoadSample> link_loads;  // every change of a link's load, when recorded
  std::uint32_t parts = 0;                 // independent parts, each its own FabricLp
  unsigned partitions = 1;                 // engine partitions they ran on
};

// Simulates `flows` over `topology` and returns when the last one has finished. The flows are
// split into independent parts (net::independent_parts), each carried by a FabricLp of its own
// (models/network/fabric_lp.hpp); with `threads` > 1 and several parts the engine's parallel
// scheduler runs them side by side. The results and the fingerprint do not depend on `threads`.
// With `record_link_loads`, every change of a link's load is kept (TransferResult::link_loads).
TransferResult simulate_transfers(const topo::Topology& topology, const std::vector<FlowRequest>& flows,
                                  const std::vector<RoutedFlow>& routes, std::uint64_t seed,
                                  bool record_link_loads = false, unsigned threads = 1);

}  // namespace fathom::net
