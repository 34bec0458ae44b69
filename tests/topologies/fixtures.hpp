// Shared test fixtures for the topology tests: the project's example fabric, and the
// message of the std::invalid_argument a builder throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "topologies/cluster_spec.hpp"

namespace fathom::test {

// The project's example fabric: 2-tier leaf-spine, 32 leaves x 32 hosts, 8 spines,
// 100 Gb/s host links, 400 Gb/s leaf-spine, 1 us per link.
inline topo::ClusterSpec example_fabric() {
  topo::ClusterSpec spec;
  spec.nodes = 1024;
  spec.node.gpus = 0;
  spec.node.nics = 1;
  spec.node.nic_bytes_per_s = 12.5e9;
  spec.fabric.kind = topo::FabricKind::kFatTree;
  spec.fabric.tiers = 2;
  spec.fabric.hosts_per_leaf = 32;
  spec.fabric.spines = 8;
  spec.fabric.tier = {{12.5e9, 1000}, {50e9, 1000}};
  return spec;
}

// The name of NIC k of node `node`: "n<node>.nic<k>".
inline std::string nic(std::uint64_t node, int k = 0) {
  return "n" + std::to_string(node) + ".nic" + std::to_string(k);
}

// What `f` threw as std::invalid_argument, or a text saying it threw nothing.
inline std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument thrown)";
}

}  // namespace fathom::test
