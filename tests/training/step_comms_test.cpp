// StepComms: flows between GPUs of different nodes routed NIC to NIC over the switch-only
// fabric, and D-mod-K's choice of path for them.
#include "models/workloads/training/step_comms.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::train;

namespace {

// 32 DGX-like nodes (8 GPUs, 8 NICs of 50e9 B/s) on a non-blocking radix-32 fat-tree: 16 leaves
// x 16 NIC ports, 16 spines.
topo::ClusterSpec non_blocking(topo::Routing routing) {
  topo::ClusterSpec spec;
  spec.nodes = 32;
  spec.fabric.radix = 32;
  spec.fabric.tier = {{50e9, 600}, {50e9, 600}};
  spec.fabric.routing = routing;
  return spec;
}

// Rail j of every node sends to rail j of node i + k: the flows of one ring step of the
// data-parallel rings, shifted by k nodes.
std::vector<FlowPair> shift(const topo::Topology& t, int nodes, int k) {
  std::vector<FlowPair> flows;
  for (int i = 0; i < nodes; ++i) {
    for (int j = 0; j < 8; ++j) {
      flows.emplace_back(t.at("n" + std::to_string(i) + ".gpu" + std::to_string(j)),
                         t.at("n" + std::to_string((i + k) % nodes) + ".gpu" + std::to_string(j)));
    }
  }
  return flows;
}

}  // namespace

TEST_CASE("StepComms with D-mod-K: every rail's shifted ring runs at the NIC's rate, one flow per fabric link") {
  const coll::CollectiveParams params;
  StepComms comms(non_blocking(topo::Routing::kDestination), params, 1);
  const topo::Topology& t = comms.topology();
  for (int k = 1; k < 32; ++k) {
    CAPTURE(k);
    const auto& round = comms.round(shift(t, 32, k));
    std::map<topo::LinkId, int> load;
    int most = 0;
    for (const auto& route : round.routes) {
      // GPU, NIC, leaf, spine, leaf, NIC, GPU; 4 links between the two nodes of one leaf.
      REQUIRE((route.size() == 6 || route.size() == 4));
      for (auto l : route) {
        if (t.link(l).cls == topo::LinkClass::kLeafSpine) most = std::max(most, ++load[l]);
      }
    }
    CHECK(most <= 1);
    CHECK(round.seconds_per_byte == doctest::Approx(1 / (50e9 * params.efficiency.nic)));
  }
  // ECMP hashing on the same fabric collides somewhere, and the slowest flow paces the round.
  StepComms hashed(non_blocking(topo::Routing::kEcmpHash), params, 1);
  CHECK(hashed.round(shift(hashed.topology(), 32, 1)).seconds_per_byte > 1.5 / (50e9 * params.efficiency.nic));
}
