// StepComms: flows between GPUs of different nodes routed NIC to NIC over the switch-only
// fabric, and D-mod-K's choice of path for them.
#include "models/workloads/training/step_comms.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
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

namespace {

// The most traffic any leaf-spine link carries in a round, up or down, counting each pair as one
// unit of traffic split over its sub-flows and paths (Round::fractions).
double worst_leaf_spine_load(const topo::Topology& t, const StepComms::Round& round) {
  std::map<topo::LinkId, double> load;
  double worst = 0;
  for (std::size_t i = 0; i < round.routes.size(); ++i) {
    for (std::size_t h = 0; h < round.routes[i].size(); ++h) {
      const topo::LinkId l = round.routes[i][h];
      if (t.link(l).cls != topo::LinkClass::kLeafSpine) continue;
      load[l] += round.fractions[i].empty() ? 1.0 : round.fractions[i][h];
      worst = std::max(worst, load[l]);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("flows per connection: ECMP's worst link load falls towards the fair share as k grows; adaptive is exact") {
  // Shift by 2 nodes on the non-blocking radix-32 fabric: every NIC sends to its rail on a node of
  // another leaf, so each leaf sends 16 units up over its 16 uplinks: a fair share of 1 per link.
  constexpr int kShift = 2;
  const std::vector<int> ks{1, 2, 4, 8, 16, 64};
  std::vector<double> mean(ks.size(), 0.0);
  constexpr int kSeeds = 8;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    for (std::size_t i = 0; i < ks.size(); ++i) {
      coll::CollectiveParams params;
      params.flows_per_connection = ks[i];
      StepComms comms(non_blocking(topo::Routing::kEcmpHash), params, seed);
      const auto& round = comms.round(shift(comms.topology(), 32, kShift));
      CHECK(round.subflows == 256 * static_cast<std::size_t>(ks[i]));
      const double worst = worst_leaf_spine_load(comms.topology(), round);
      // Deterministic: the same seed gives the same routes in a fresh model.
      StepComms again(non_blocking(topo::Routing::kEcmpHash), params, seed);
      CHECK(worst_leaf_spine_load(again.topology(), again.round(shift(again.topology(), 32, kShift))) == worst);
      // A pair moves k times its slowest sub-flow's rate, never more than its NIC.
      CHECK(round.seconds_per_byte >= 1 / (50e9 * params.efficiency.nic) * (1 - 1e-12));
      CHECK(worst >= 1.0);
      mean[i] += worst / kSeeds;
    }
  }
  std::string table;
  for (std::size_t i = 0; i < ks.size(); ++i) table += " k=" + std::to_string(ks[i]) + ": " + std::to_string(mean[i]);
  MESSAGE("worst leaf-spine load, mean over seeds 1.." << kSeeds << " (fair share 1):" << table);
  for (std::size_t i = 1; i < ks.size(); ++i) CHECK(mean[i] <= mean[i - 1]);
  CHECK(mean.front() >= 2.0);  // one flow per pair collides somewhere
  CHECK(mean.back() < 1.5);    // 64 per pair come close to the mean

  // Adaptive: every leaf-spine link carries exactly its fair share, and every flow runs at the
  // NIC's rate (the whole shift is non-blocking).
  const coll::CollectiveParams params;
  StepComms adaptive(non_blocking(topo::Routing::kAdaptive), params, 1);
  for (int k = 1; k < 32; ++k) {
    CAPTURE(k);
    const auto& round = adaptive.round(shift(adaptive.topology(), 32, k));
    const double worst = worst_leaf_spine_load(adaptive.topology(), round);
    // A leaf holds 2 nodes: with k = 1 or 31 half the pairs stay on their leaf (8 units over 16
    // uplinks), with any other shift all 16 leave.
    CHECK(worst == doctest::Approx(k == 1 || k == 31 ? 0.5 : 1.0).epsilon(1e-12));
    CHECK(round.seconds_per_byte == doctest::Approx(1 / (50e9 * params.efficiency.nic)).epsilon(1e-12));
    CHECK(round.subflows == 256);
  }
  // k changes nothing with D-mod-K or adaptive routing: one flow per pair either way.
  coll::CollectiveParams many;
  many.flows_per_connection = 16;
  StepComms spread(non_blocking(topo::Routing::kAdaptive), many, 1);
  StepComms dmodk(non_blocking(topo::Routing::kDestination), many, 1);
  CHECK(spread.round(shift(spread.topology(), 32, 3)).subflows == 256);
  CHECK(dmodk.round(shift(dmodk.topology(), 32, 3)).subflows == 256);
  CHECK(dmodk.round(shift(dmodk.topology(), 32, 3)).seconds_per_byte ==
        doctest::Approx(1 / (50e9 * params.efficiency.nic)));
}
