// The DAG executor against hand-computed times: latency, bandwidth, alpha, dependencies,
// sharing and zero-byte transfers.
#include "models/collectives/transfer_dag.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "models/collectives/alpha_beta.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"
#include "topologies/routing.hpp"

using fathom::coll::run_dag;
using fathom::coll::TransferDag;
using fathom::sim::SimTime;
using fathom::topo::LinkClass;
using fathom::topo::Router;
using fathom::topo::Topology;
using fathom::topo::VertexKind;

namespace {
// a -> sw -> b and c -> sw: 10 GB/s links of 1 us each.
Topology star() {
  Topology t;
  const auto a = t.add_vertex("a", VertexKind::kGpu);
  const auto b = t.add_vertex("b", VertexKind::kGpu);
  const auto c = t.add_vertex("c", VertexKind::kGpu);
  const auto sw = t.add_vertex("sw", VertexKind::kSwitch, 1);
  t.add_cable(a, sw, 10e9, 1000, LinkClass::kHostLeaf);
  t.add_cable(b, sw, 10e9, 1000, LinkClass::kHostLeaf);
  t.add_cable(c, sw, 10e9, 1000, LinkClass::kHostLeaf);
  return t;
}
}  // namespace

TEST_CASE("one transfer: route latency then bytes at the bottleneck") {
  const Topology t = star();
  Router router(t);
  TransferDag dag;
  dag.add({t.at("a"), t.at("b"), 1e6, 0});
  const auto r = run_dag(t, router, dag, 1);
  // 2 us of latency, 1 MB at 10 GB/s = 100 us.
  CHECK(r.transfers[0].activated == SimTime::from_ns(2000));
  CHECK(r.makespan == SimTime::from_ns(102'000));
}

TEST_CASE("dependencies, alpha and zero-byte transfers chain their times") {
  const Topology t = star();
  Router router(t);
  TransferDag dag;
  const auto x = dag.add({t.at("a"), t.at("b"), 1e6, 0});
  const auto sync = dag.add({t.at("b"), t.at("c"), 0, 300}, {x});  // pure latency: 300 + 2000 ns
  const auto y = dag.add({t.at("c"), t.at("a"), 1e6, 500}, {sync});
  const auto r = run_dag(t, router, dag, 1);
  CHECK(r.transfers[x].finish == SimTime::from_ns(102'000));
  CHECK(r.transfers[sync].released == SimTime::from_ns(102'000));
  CHECK(r.transfers[sync].finish == SimTime::from_ns(104'300));
  CHECK(r.transfers[y].finish == SimTime::from_ns(104'300 + 500 + 2000 + 100'000));
  CHECK(r.makespan == r.transfers[y].finish);
  // Without contention the simulation is the DAG's alpha-beta critical path.
  CHECK(fathom::coll::critical_path_seconds(dag, t, router, 1) == doctest::Approx(r.makespan.to_seconds()));
}

TEST_CASE("a pipelined slice streams behind the previous one: no route latency of its own") {
  const Topology t = star();
  Router router(t);
  TransferDag dag;
  // A message of 2 MB in two slices: the first pays alpha and 2 us of latency, the second
  // (alpha 0, pipelined) follows its bytes without a gap.
  const auto first = dag.add({t.at("a"), t.at("b"), 1e6, 500});
  const auto second = dag.add({t.at("a"), t.at("b"), 1e6, 0, true}, {first});
  const auto r = run_dag(t, router, dag, 1);
  CHECK(r.transfers[first].finish == SimTime::from_ns(500 + 2000 + 100'000));
  CHECK(r.transfers[second].activated == r.transfers[first].finish);
  CHECK(r.transfers[second].finish == SimTime::from_ns(500 + 2000 + 200'000));
  CHECK(fathom::coll::critical_path_seconds(dag, t, router, 1) == doctest::Approx(r.makespan.to_seconds()));
}

TEST_CASE("a message after_sent follows the previous one on its connection once it has left, not arrived") {
  const Topology t = star();
  Router router(t);
  // Two 1 MB messages a -> b, the second with alpha 500. Arrival-ordered, it waits for the first
  // to arrive (102 us) and then pays alpha and the 2 us latency again: its bytes start at
  // 104.5 us. Sent-ordered, it waits for the first's bytes to have left a (102 - 2 = 100 us),
  // pays alpha and its latency from there, and its bytes start at 102.5 us: the latencies of
  // the two messages overlap, as a connection with several messages in flight has them.
  for (bool sent : {false, true}) {
    CAPTURE(sent);
    TransferDag dag;
    const auto first = dag.add({t.at("a"), t.at("b"), 1e6, 0});
    const auto second = dag.add({t.at("a"), t.at("b"), 1e6, 500, false, sent}, {first});
    const auto r = run_dag(t, router, dag, 1);
    CHECK(r.transfers[first].finish == SimTime::from_ns(102'000));
    CHECK(r.transfers[second].activated == SimTime::from_ns(sent ? 102'500 : 104'500));
    CHECK(r.transfers[second].finish == SimTime::from_ns(sent ? 202'500 : 204'500));
    CHECK(fathom::coll::critical_path_seconds(dag, t, router, 1) == doctest::Approx(r.makespan.to_seconds()));
  }
  // Data it needs from elsewhere still holds it back in full: released by a 300 ns zero-byte
  // message c -> a that arrives at 102 + 2.3 = 104.3 us, it starts 2.5 us later.
  TransferDag dag;
  const auto first = dag.add({t.at("a"), t.at("b"), 1e6, 0});
  const auto data = dag.add({t.at("c"), t.at("a"), 0, 300}, {first});
  const auto second = dag.add({t.at("a"), t.at("b"), 1e6, 500, false, true}, {first, data});
  const auto r = run_dag(t, router, dag, 1);
  CHECK(r.transfers[data].finish == SimTime::from_ns(104'300));
  CHECK(r.transfers[second].activated == SimTime::from_ns(106'800));
  CHECK(fathom::coll::critical_path_seconds(dag, t, router, 1) == doctest::Approx(r.makespan.to_seconds()));
  // It must follow a message of its own connection, and not be a pipelined slice.
  CHECK_THROWS_AS(dag.add({t.at("a"), t.at("c"), 1, 0, false, true}, {first}), std::invalid_argument);
  CHECK_THROWS_AS(dag.add({t.at("a"), t.at("b"), 1, 0, true, true}, {first}), std::invalid_argument);
  CHECK_THROWS_AS(dag.add({t.at("a"), t.at("b"), 1, 0, false, true}, {}), std::invalid_argument);
}

TEST_CASE("a transfer waits for all its predecessors; same-vertex transfers cost only alpha") {
  const Topology t = star();
  Router router(t);
  TransferDag dag;
  const auto slow = dag.add({t.at("a"), t.at("b"), 2e6, 0});
  const auto fast = dag.add({t.at("c"), t.at("b"), 1e5, 0});
  const auto local = dag.add({t.at("b"), t.at("b"), 5e6, 0}, {slow, fast});  // empty route: instant
  const auto r = run_dag(t, router, dag, 1);
  // slow and fast share sw->b: 5 GB/s each until fast ends at 2 us + 20 us, then slow alone.
  CHECK(r.transfers[fast].finish == SimTime::from_ns(22'000));
  // slow: 1e5 bytes by 22 us, the other 1.9e6 at 10 GB/s = 190 us.
  CHECK(r.transfers[slow].finish == SimTime::from_ns(212'000));
  CHECK(r.transfers[local].finish == r.transfers[slow].finish);
}

TEST_CASE("append(): the other DAG's transfers follow, their predecessors shifted, neither waiting on the other") {
  TransferDag first;
  first.add({0, 1, 10, 0});
  first.add({1, 2, 20, 0}, {0});
  TransferDag second;
  second.add({3, 4, 30, 0});
  second.add({4, 5, 40, 7, true, false, 9}, {0});
  CHECK(first.append(second) == 2);
  REQUIRE(first.size() == 4);
  CHECK(first.after(2).empty());
  CHECK(std::ranges::equal(first.after(3), std::vector<fathom::coll::TransferIndex>{2}));
  CHECK(first[3].bytes == 40);
  CHECK(first[3].alpha_ns == 7);
  CHECK(first[3].pipelined);
  CHECK(first[3].connection == 9);
  CHECK(std::ranges::equal(first.after(1), std::vector<fathom::coll::TransferIndex>{0}));
}

TEST_CASE("the DAG rejects a forward or self dependency and bad sizes") {
  TransferDag dag;
  CHECK_THROWS_AS(dag.add({0, 1, 1, 0}, {0}), std::invalid_argument);
  dag.add({0, 1, 1, 0});
  CHECK_THROWS_AS(dag.add({0, 1, 1, 0}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(dag.add({0, 1, -1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(dag.add({0, 1, 1, -5}), std::invalid_argument);
  CHECK(dag.size() == 1);
}

TEST_CASE("an empty DAG finishes at 0 and runs are reproducible") {
  const Topology t = fathom::coll::testing::dgx_cluster(2, false);
  Router router(t);
  CHECK(run_dag(t, router, TransferDag{}, 3).makespan == SimTime::zero());
  TransferDag dag;
  const auto g = fathom::coll::testing::gpus(t, 16);
  for (std::size_t i = 0; i < g.size(); ++i) dag.add({g[i], g[(i + 9) % g.size()], 1e7, 0});
  const auto a = run_dag(t, router, dag, 3);
  const auto b = run_dag(t, router, dag, 3);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.makespan == b.makespan);
}

namespace {
// Two hosts on two leaves joined by 4 spines: 50 GB/s host links, 12.5 GB/s leaf-spine links, 1 us
// each. A single path up and down carries a quarter of what the host link does.
Topology two_leaves(fathom::topo::Routing routing) {
  Topology t;
  const auto a = t.add_vertex("a", VertexKind::kNic);
  const auto b = t.add_vertex("b", VertexKind::kNic);
  const auto la = t.add_vertex("leaf0", VertexKind::kSwitch, 1);
  const auto lb = t.add_vertex("leaf1", VertexKind::kSwitch, 1);
  t.add_cable(a, la, 50e9, 1000, LinkClass::kHostLeaf);
  t.add_cable(b, lb, 50e9, 1000, LinkClass::kHostLeaf);
  for (int s = 0; s < 4; ++s) {
    const auto spine = t.add_vertex("spine" + std::to_string(s), VertexKind::kSwitch, 2);
    t.add_cable(la, spine, 12.5e9, 1000, LinkClass::kLeafSpine);
    t.add_cable(lb, spine, 12.5e9, 1000, LinkClass::kLeafSpine);
  }
  t.routing = routing;
  return t;
}
}  // namespace

TEST_CASE("a transfer as several flows: ECMP sub-flows, adaptive spread, D-mod-K one path") {
  using fathom::topo::Routing;
  constexpr double kBytes = 1e8;
  auto time_of = [&](Routing routing, int k) {
    const Topology t = two_leaves(routing);
    Router router(t);
    TransferDag one;
    one.add({t.at("a"), t.at("b"), kBytes, 0});
    const auto flows = fathom::coll::route_dag_flows(t, router, one, 1, k);
    CHECK(flows.begin.size() == 2);
    const auto makespan = run_dag(t, router, one, 1, k).makespan;
    // The router keeps one route per flow of the connection, for the next run on it (the next
    // size of a sweep); a spread route is kept apart, once per (source, destination).
    const auto flows_of_transfer = flows.begin[1] - flows.begin[0];
    CHECK(router.cached_routes() == (routing == Routing::kAdaptive ? 0 : flows_of_transfer));
    return std::pair{makespan, flows_of_transfer};
  };
  // One flow: 4 us of latency, 1e8 bytes at one spine link's 12.5 GB/s (8 ms).
  const auto [one, n1] = time_of(Routing::kEcmpHash, 1);
  CHECK(n1 == 1);
  CHECK(one == SimTime::from_ns(4000 + 8'000'000));
  // Adaptive: a quarter on each spine, the host link's 50 GB/s (2 ms); still one flow.
  const auto [spread, ns] = time_of(Routing::kAdaptive, 1);
  CHECK(ns == 1);
  CHECK(spread == SimTime::from_ns(4000 + 2'000'000));
  CHECK(time_of(Routing::kAdaptive, 8).first == spread);
  // D-mod-K: one path whatever k.
  const auto [dmodk, nd] = time_of(Routing::kDestination, 8);
  CHECK(nd == 1);
  CHECK(dmodk == one);
  // ECMP with k flows of 1/k each: between the two, and at most the host link's rate; with many
  // flows the hash spreads them close to the adaptive time. (Not monotonic in k: each k is its
  // own draw of the hash, and 16 flows can land less evenly than 4.)
  SimTime many = one;
  for (int k : {2, 4, 16, 64}) {
    CAPTURE(k);
    const auto [t, n] = time_of(Routing::kEcmpHash, k);
    CHECK(n == static_cast<std::uint32_t>(k));
    CHECK(t <= one);
    CHECK(t >= spread);
    many = t;
  }
  CHECK(many.to_seconds() < 1.5 * spread.to_seconds());
  // A transfer that stays on NVLink is one flow; one over host-leaf links is k.
  Topology node;
  const auto g0 = node.add_vertex("g0", VertexKind::kGpu);
  const auto g1 = node.add_vertex("g1", VertexKind::kGpu);
  const auto plane = node.add_vertex("nvswitch", VertexKind::kNvSwitch);
  node.add_cable(g0, plane, 450e9, 500, LinkClass::kNvLink);
  node.add_cable(g1, plane, 450e9, 500, LinkClass::kNvLink);
  Router nvlink(node);
  TransferDag local;
  local.add({g0, g1, 1e6, 0});
  CHECK(fathom::coll::route_dag_flows(node, nvlink, local, 1, 8).flows.size() == 1);
  const Topology s = star();
  Router router(s);
  TransferDag hosts;
  hosts.add({s.at("a"), s.at("b"), 1e6, 0});
  CHECK(fathom::coll::route_dag_flows(s, router, hosts, 1, 8).flows.size() == 8);
  CHECK_THROWS_AS(fathom::coll::route_dag_flows(s, router, hosts, 1, 0), std::invalid_argument);
}
