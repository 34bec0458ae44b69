// The fabric of a wafer-scale cluster in weight-streaming mode: MemoryX, which holds the weights,
// joined to every system through SwarmX, a tree whose nodes copy what comes down (a broadcast)
// and add up what comes up (a reduction). Systems are the leaves, `fan_out` to a SwarmX node of
// the lowest level; each level has ceil(count below / fan_out) nodes, up to one root, and MemoryX
// hangs above the root. Every link is a cable (both directions): weights go down while gradients
// go up. Names: "memoryx", "swarmx<level>.<i>" (level 1 above the systems), "cs<i>".
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "topologies/topology.hpp"

namespace fathom::topo {

struct SwarmXTreeSpec {
  int systems = 1;
  int fan_out = 2;                     // >= 2
  double system_link_bytes_per_s = 0;  // a system <-> its SwarmX node
  double tree_link_bytes_per_s = 0;    // a SwarmX node <-> its parent
  double memoryx_bytes_per_s = 0;      // MemoryX <-> the root
  std::int64_t latency_ns = 0;         // every link, one way
};

struct SwarmXTree {
  Topology topology;
  VertexId memoryx = 0;
  std::vector<VertexId> systems;
  // Every parent -> child edge, from MemoryX down, breadth first: edges[0] is MemoryX -> root,
  // and a vertex's edge from its parent comes before any edge to its children.
  std::vector<std::pair<VertexId, VertexId>> edges;
  int levels = 0;  // SwarmX levels
};

// SwarmX levels between MemoryX and `systems` systems: ceil(log_fan_out(systems)), at least 1.
// Throws std::invalid_argument for systems < 1 or fan_out < 2.
int swarmx_levels(int systems, int fan_out);

// SwarmX nodes in the tree (every level). Throws as swarmx_levels.
int swarmx_nodes(int systems, int fan_out);

// Builds the tree. Throws std::invalid_argument as swarmx_levels, or for a rate that is not
// positive and finite or a negative latency.
SwarmXTree build_swarmx_tree(const SwarmXTreeSpec& spec);

}  // namespace fathom::topo
