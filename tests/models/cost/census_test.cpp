// The census against a fat-tree counted by hand and against NVIDIA's published DGX SuperPOD
// reference architecture (switch and cable counts per tier).
#include "models/cost/census.hpp"

#include <doctest/doctest.h>

#include "topologies/cluster.hpp"

using fathom::cost::Census;
using fathom::cost::census_of;
using fathom::topo::ClusterSpec;

namespace {

ClusterSpec small_fat_tree() {
  ClusterSpec spec;
  spec.nodes = 4;
  spec.node.gpus = 2;
  spec.node.nics = 2;
  spec.node.nic_bytes_per_s = 50e9;
  spec.fabric.tiers = 2;
  spec.fabric.hosts_per_leaf = 4;
  spec.fabric.spines = 2;
  spec.fabric.tier = {{50e9, 600}, {50e9, 600}};
  return spec;
}

// DGX H100 nodes (8 GPUs, 8 compute NICs of 400 Gb/s) on a rail-optimized fat-tree of radix-64
// NDR switches: the DGX SuperPOD compute fabric (NVIDIA, "NVIDIA DGX SuperPOD: Next Generation
// Scalable Infrastructure for AI Leadership, Reference Architecture Featuring NVIDIA DGX H100
// Systems", RA-11333-001 V11, 2023-09-22: "rail-optimized, full fat-tree network with eight
// NDR400 connections per system", Quantum QM9700 switches of 64 NDR ports).
ClusterSpec superpod(int nodes, int tiers) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = 8;
  spec.node.nics = 8;
  spec.node.nic_bytes_per_s = 50e9;
  spec.fabric.kind = fathom::topo::FabricKind::kRailOptimized;
  spec.fabric.tiers = tiers;
  spec.fabric.radix = 64;
  spec.fabric.tier.assign(static_cast<std::size_t>(tiers), {50e9, 600});
  return spec;
}

}  // namespace

TEST_CASE("census: a 2-tier fat-tree of 4 nodes, counted by hand") {
  // 4 nodes x 2 NICs = 8 NIC ports, 4 per leaf: 2 leaves; each leaf has one cable to each of the
  // 2 spines. Cables: 8 NIC-leaf, 2 x 2 = 4 leaf-spine. Ports: a leaf 4 down and 2 up, a spine 2
  // down.
  const Census c = census_of(fathom::topo::build_cluster(small_fat_tree()));
  CHECK(c.nodes == 4);
  CHECK(c.gpus == 8);
  CHECK(c.nics == 8);
  CHECK(c.nic_ports == 8);
  REQUIRE(c.fabric.size() == 2);
  CHECK(c.fabric[0].switches == 2);
  CHECK(c.fabric[0].cables_down == 8);
  CHECK(c.fabric[0].ports_down == 8);
  CHECK(c.fabric[0].ports_up == 4);
  CHECK(c.fabric[1].switches == 2);
  CHECK(c.fabric[1].cables_down == 4);
  CHECK(c.fabric[1].ports_down == 4);
  CHECK(c.fabric[1].ports_up == 0);
  // Each leaf: 4 NICs down, a cable to each of 2 spines up; each spine: a cable from each leaf.
  CHECK(c.fabric[0].most_ports == 6);
  CHECK(c.fabric[1].most_ports == 2);
  CHECK(c.fabric_cables() == 12);
  CHECK(c.switch_ports() == 16);
}

TEST_CASE("census: the DGX SuperPOD reference architecture's switch and cable counts") {
  // RA-11333-001 V11, Table 3 ("Larger SuperPOD component counts"): per number of scalable
  // units of 32 DGX H100, the leaf, spine and core switches and the node-leaf, leaf-spine and
  // spine-core cables. Exact counts: no tolerance.
  struct Row {
    int nodes, tiers;
    std::size_t leaves, spines, cores, node_leaf, leaf_spine, spine_core;
  };
  const Row rows[] = {
      {128, 2, 32, 16, 0, 1024, 1024, 0},          // 4 SU
      {256, 2, 64, 32, 0, 2048, 2048, 0},          // 8 SU
      {512, 3, 128, 128, 64, 4096, 4096, 4096},    // 16 SU
      {1024, 3, 256, 256, 128, 8192, 8192, 8192},  // 32 SU
  };
  for (const Row& r : rows) {
    CAPTURE(r.nodes);
    // Every switch count derived from the radix: fathom's layout takes the fewest switches that
    // hold the cables, as the RA does (its 4-SU pod: 16 spines, two cables from each leaf to
    // each; its 16-SU cores: 64, sixteen cables from each of the 4 pods' spines).
    const ClusterSpec spec = superpod(r.nodes, r.tiers);
    const Census c = census_of(fathom::topo::build_cluster(spec));
    CHECK(c.nodes == static_cast<std::size_t>(r.nodes));
    CHECK(c.gpus == static_cast<std::size_t>(8 * r.nodes));
    REQUIRE(c.fabric.size() == static_cast<std::size_t>(r.tiers));
    CHECK(c.fabric[0].switches == r.leaves);
    CHECK(c.fabric[1].switches == r.spines);
    CHECK(c.fabric[0].cables_down == r.node_leaf);
    CHECK(c.fabric[1].cables_down == r.leaf_spine);
    if (r.tiers == 3) {
      CHECK(c.fabric[2].switches == r.cores);
      CHECK(c.fabric[2].cables_down == r.spine_core);
    }
  }
  // Table 8 (cables of the 4-SU, 127-node pod): 1,536 twin-port switch transceivers, two
  // ports each, for its leaf and spine ports. 128 nodes use 1,024 NIC-facing leaf ports, 1,024
  // leaf uplinks and 1,024 spine ports: 3,072 ports, 1,536 twin-port modules.
  const Census pod = census_of(fathom::topo::build_cluster(superpod(128, 2)));
  CHECK(pod.switch_ports() / 2 == 1536);
}
