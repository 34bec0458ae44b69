// Generated network traffic: the classic patterns used to probe a fabric.
//
// Patterns run over an ordered list of endpoints (hosts: NICs, or GPUs) and are drawn from
// the scenario's seed, so the same scenario always yields the same flows, ids and start
// times. Flow ids are 0, 1, 2, ... in the order listed below for each pattern.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "sim/time.hpp"

namespace fathom::workload {

enum class TrafficPattern {
  kPermutation,  // a uniformly random derangement: each endpoint sends one flow, none to itself
  kAllToAll,     // every ordered pair (i, j), i != j: n(n-1) flows, in order of i then j
  kIncast,       // every endpoint but the target sends one flow to the target
  kRing,         // endpoint i sends to endpoint (i + 1) mod n
  kRandom,       // `flows` flows between uniformly random distinct endpoints
};

std::string_view to_string(TrafficPattern pattern);

struct TrafficSpec {
  TrafficPattern pattern = TrafficPattern::kPermutation;
  double bytes_per_flow = 0;
  std::size_t endpoints = 0;      // use the first n endpoints; 0 = all
  std::size_t incast_target = 0;  // index among the endpoints used
  std::size_t flows = 0;          // kRandom only
  sim::SimTime start;             // every flow starts here, or uniformly in [start, start + start_window)
  sim::SimTime start_window;      // 0: all at `start`
  bool within_node = false;       // the pattern among each node's endpoints, node by node
};

// Throws std::invalid_argument naming the field for impossible specs (fewer than two
// endpoints, target out of range, no flows for kRandom, negative bytes).
std::vector<net::FlowRequest> generate_traffic(const TrafficSpec& spec, const std::vector<topo::VertexId>& endpoints,
                                               std::uint64_t seed);

// The pattern inside each group of endpoints on its own (an all-to-all among each node's GPUs):
// group g's flows are generate_traffic(spec, groups[g], hash_combine(seed, g)), their ids
// following the previous groups' flows. `spec.endpoints` applies to each group.
std::vector<net::FlowRequest> generate_traffic_in_groups(const TrafficSpec& spec,
                                                         const std::vector<std::vector<topo::VertexId>>& groups,
                                                         std::uint64_t seed);

}  // namespace fathom::workload
