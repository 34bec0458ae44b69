// The SwarmX tree: its levels and nodes by the system count, and its edges from MemoryX down.
#include "topologies/swarmx_tree.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

namespace fathom::topo {

TEST_CASE("SwarmX levels grow with the log of the system count") {
  CHECK(swarmx_levels(1, 4) == 1);
  CHECK(swarmx_levels(4, 4) == 1);
  CHECK(swarmx_levels(5, 4) == 2);
  CHECK(swarmx_levels(16, 4) == 2);
  CHECK(swarmx_levels(17, 4) == 3);
  CHECK(swarmx_levels(2048, 4) == 6);  // 4^5 = 1024 < 2048 <= 4^6
  CHECK(swarmx_levels(2048, 2) == 11);
  CHECK(swarmx_nodes(16, 4) == 5);
  CHECK(swarmx_nodes(2048, 4) == 512 + 128 + 32 + 8 + 2 + 1);
  CHECK_THROWS_AS(swarmx_levels(0, 4), std::invalid_argument);
  CHECK_THROWS_AS(swarmx_levels(4, 1), std::invalid_argument);
}

TEST_CASE("The tree joins MemoryX to every system, breadth first, at each level's rate") {
  SwarmXTreeSpec spec;
  spec.systems = 17;
  spec.fan_out = 4;
  spec.system_link_bytes_per_s = 150e9;
  spec.tree_link_bytes_per_s = 100e9;
  spec.memoryx_bytes_per_s = 50e9;
  spec.latency_ns = 1000;
  const SwarmXTree tree = build_swarmx_tree(spec);
  CHECK(tree.levels == 3);
  CHECK(tree.systems.size() == 17);
  // MemoryX, 5 + 2 + 1 SwarmX nodes, 17 systems; one edge into every vertex but MemoryX.
  CHECK(tree.topology.vertices().size() == 1 + 8 + 17);
  CHECK(tree.edges.size() == 8 + 17);
  CHECK(tree.edges.front().first == tree.memoryx);
  CHECK(tree.topology.summary.switches_per_tier == std::vector<std::size_t>{0, 5, 2, 1});
  CHECK(tree.topology.summary.cables_per_tier == std::vector<std::size_t>{0, 17, 5, 2});
  std::vector<bool> reached(tree.topology.vertices().size(), false);
  reached[tree.memoryx] = true;
  for (const auto& [parent, child] : tree.edges) {
    CHECK(reached[parent]);  // a vertex's edge from its parent comes before its own edges
    reached[child] = true;
  }
  for (VertexId s : tree.systems) {
    CHECK(tree.topology.vertex(s).kind == VertexKind::kWafer);
    REQUIRE(tree.topology.in_links(s).size() == 1);
    CHECK(tree.topology.link(tree.topology.in_links(s).front()).bytes_per_s == 150e9);
  }
  CHECK(tree.topology.link(tree.topology.out_links(tree.memoryx).front()).bytes_per_s == 50e9);
  CHECK(tree.topology.vertex(tree.topology.at("swarmx2.1")).tier == 2);
  CHECK(tree.topology.link(tree.topology.in_links(tree.topology.at("swarmx2.1")).front()).bytes_per_s == 100e9);
  spec.memoryx_bytes_per_s = 0;
  CHECK_THROWS_AS(build_swarmx_tree(spec), std::invalid_argument);
}

}  // namespace fathom::topo
