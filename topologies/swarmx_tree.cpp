#include "topologies/swarmx_tree.hpp"

#include <stdexcept>
#include <string>

namespace fathom::topo {

namespace {

void check_shape(int systems, int fan_out) {
  if (systems < 1)
    throw std::invalid_argument("swarmx: expected at least one system, found " + std::to_string(systems));
  if (fan_out < 2)
    throw std::invalid_argument("swarmx: expected a fan-out of at least 2, found " + std::to_string(fan_out));
}

// Nodes of each SwarmX level, level 1 (above the systems) first.
std::vector<int> level_sizes(int systems, int fan_out) {
  check_shape(systems, fan_out);
  std::vector<int> sizes;
  int below = systems;
  do {
    below = (below + fan_out - 1) / fan_out;
    sizes.push_back(below);
  } while (below > 1);
  return sizes;
}

}  // namespace

int swarmx_levels(int systems, int fan_out) { return static_cast<int>(level_sizes(systems, fan_out).size()); }

int swarmx_nodes(int systems, int fan_out) {
  int nodes = 0;
  for (int n : level_sizes(systems, fan_out)) nodes += n;
  return nodes;
}

SwarmXTree build_swarmx_tree(const SwarmXTreeSpec& spec) {
  const std::vector<int> sizes = level_sizes(spec.systems, spec.fan_out);
  SwarmXTree tree;
  Topology& t = tree.topology;
  tree.levels = static_cast<int>(sizes.size());
  tree.memoryx = t.add_vertex("memoryx", VertexKind::kStorage);
  // by_level[l][i]: node i of SwarmX level l + 1.
  std::vector<std::vector<VertexId>> by_level(sizes.size());
  for (std::size_t l = 0; l < sizes.size(); ++l) {
    for (int i = 0; i < sizes[l]; ++i) {
      by_level[l].push_back(t.add_vertex("swarmx" + std::to_string(l + 1) + "." + std::to_string(i),
                                         VertexKind::kSwitch, static_cast<int>(l + 1)));
    }
  }
  for (int i = 0; i < spec.systems; ++i)
    tree.systems.push_back(t.add_vertex("cs" + std::to_string(i), VertexKind::kWafer));
  const auto cable = [&](VertexId parent, VertexId child, double rate, LinkClass cls) {
    t.add_cable(parent, child, rate, spec.latency_ns, cls);
    tree.edges.emplace_back(parent, child);
  };
  cable(tree.memoryx, by_level.back().front(), spec.memoryx_bytes_per_s, LinkClass::kStorage);
  for (std::size_t l = sizes.size() - 1; l > 0; --l) {
    for (std::size_t i = 0; i < by_level[l - 1].size(); ++i) {
      cable(by_level[l][i / static_cast<std::size_t>(spec.fan_out)], by_level[l - 1][i], spec.tree_link_bytes_per_s,
            LinkClass::kLeafSpine);
    }
  }
  for (std::size_t i = 0; i < tree.systems.size(); ++i) {
    cable(by_level.front()[i / static_cast<std::size_t>(spec.fan_out)], tree.systems[i], spec.system_link_bytes_per_s,
          LinkClass::kHostLeaf);
  }
  t.summary.description = std::to_string(spec.systems) + " systems under a SwarmX tree of " +
                          std::to_string(tree.levels) + " level(s), fan-out " + std::to_string(spec.fan_out);
  t.summary.endpoints = static_cast<std::size_t>(spec.systems) + 1;
  // Tier l holds SwarmX level l's nodes; the cables up to it come from the level below (the
  // systems, for level 1). MemoryX's cable to the root is a storage link, counted apart.
  t.summary.switches_per_tier.assign(sizes.size() + 1, 0);
  t.summary.cables_per_tier.assign(sizes.size() + 1, 0);
  for (std::size_t l = 0; l < sizes.size(); ++l) {
    t.summary.switches_per_tier[l + 1] = static_cast<std::size_t>(sizes[l]);
    t.summary.cables_per_tier[l + 1] = static_cast<std::size_t>(l == 0 ? spec.systems : sizes[l - 1]);
  }
  return tree;
}

}  // namespace fathom::topo
