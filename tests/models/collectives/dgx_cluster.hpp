// The DGX-H100-like cluster the collectives tests run on: 8 GPUs per node on one NVSwitch
// plane (450e9 B/s per GPU per direction, 500 ns), 8 NICs of 50e9 B/s on PCIe (64e9 B/s,
// 200 ns), one node per leaf of a 2-tier fat-tree. A single spine whose cables carry
// `leaf_up_bytes_per_s` keeps ECMP out of the picture: uncontended means uncontended, and the
// oversubscription is exactly the ratio of a leaf's down to up capacity.
#pragma once

#include <string>
#include <vector>

#include "topologies/cluster.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll::testing {

inline topo::ClusterSpec dgx_spec(int nodes, bool nvls, double leaf_up_bytes_per_s = 8 * 50e9) {
  topo::ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = 8;
  spec.node.nics = 8;
  spec.node.nvlink_bytes_per_s = 450e9;
  spec.node.nvlink_latency_ns = 500;
  spec.node.nvls = nvls;
  spec.node.nic_bytes_per_s = 50e9;
  spec.fabric.kind = topo::FabricKind::kFatTree;
  spec.fabric.tiers = 2;
  spec.fabric.hosts_per_leaf = 8;
  spec.fabric.spines = 1;
  spec.fabric.tier = {{50e9, 600}, {leaf_up_bytes_per_s, 700}};
  return spec;
}

inline topo::Topology dgx_cluster(int nodes, bool nvls, double leaf_up_bytes_per_s = 8 * 50e9) {
  return topo::build_cluster(dgx_spec(nodes, nvls, leaf_up_bytes_per_s));
}

// The first `count` GPUs in node-major order: n0.gpu0 .. n0.gpu7, n1.gpu0, ...
inline std::vector<topo::VertexId> gpus(const topo::Topology& t, int count) {
  std::vector<topo::VertexId> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(t.at("n" + std::to_string(i / 8) + ".gpu" + std::to_string(i % 8)));
  }
  return out;
}

}  // namespace fathom::coll::testing
