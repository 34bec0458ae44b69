// Router: route lengths, path shape, ECMP spread and determinism, the forwarding rules, and a
// comparison of its distances with Boost.Graph's own BFS.
#include "topologies/routing.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/topologies/fixtures.hpp"
#include "topologies/cluster.hpp"

using namespace fathom::topo;
using fathom::test::error_of;
using fathom::test::example_fabric;
using fathom::test::nic;

namespace {

ClusterSpec k_ary_3_tier(int k) {
  ClusterSpec spec;
  spec.nodes = k * k * k / 4;
  spec.node.gpus = 0;
  spec.node.nics = 1;
  spec.fabric.tiers = 3;
  spec.fabric.radix = k;
  spec.fabric.tier.assign(3, TierSpec{50e9, 500});
  return spec;
}

ClusterSpec rail_cluster(int nodes) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = 8;
  spec.node.nics = 8;
  spec.fabric.kind = FabricKind::kRailOptimized;
  spec.fabric.radix = 64;
  spec.fabric.tier = {{50e9, 600}, {50e9, 600}};
  return spec;
}

// A route is a chain of links from src to dst.
void check_path(const Topology& t, const std::vector<LinkId>& route, VertexId src, VertexId dst) {
  REQUIRE(!route.empty());
  CHECK(t.link(route.front()).from == src);
  CHECK(t.link(route.back()).to == dst);
  for (std::size_t i = 1; i < route.size(); ++i) CHECK(t.link(route[i - 1]).to == t.link(route[i]).from);
}

std::vector<std::string> names(const Topology& t, const std::vector<LinkId>& route) {
  std::vector<std::string> out;
  for (LinkId l : route) out.push_back(t.link(l).name);
  return out;
}

}  // namespace

TEST_CASE("the example fabric: 2 links on one leaf, 4 across leaves, up then down") {
  const Topology t = build_cluster(example_fabric());
  Router router(t);
  const VertexId a = t.at("n0.nic0");
  const VertexId b = t.at("n1.nic0");
  const VertexId far = t.at("n1023.nic0");
  const auto& same_leaf = router.route(a, b, 7);
  CHECK(names(t, same_leaf) == std::vector<std::string>{"n0.nic0->leaf0", "leaf0->n1.nic0"});
  const auto& across = router.route(a, far, 7);
  REQUIRE(across.size() == 4);
  check_path(t, across, a, far);
  CHECK(t.link(across[0]).cls == LinkClass::kHostLeaf);
  CHECK(t.link(across[1]).cls == LinkClass::kLeafSpine);
  CHECK(t.link(across[2]).cls == LinkClass::kLeafSpine);
  CHECK(t.link(across[3]).cls == LinkClass::kHostLeaf);
  CHECK(t.vertex(t.link(across[1]).to).tier == 2);
  CHECK(router.hop_count(a, far) == 4u);
  CHECK(router.hop_count(a, b) == 2u);
  CHECK(router.route(a, a, 7).empty());
  CHECK(router.hop_count(a, a) == 0u);
  // The ECMP sets: one way up from the NIC, eight from its leaf, one down from any spine.
  CHECK(router.next_links(a, far).size() == 1);
  CHECK(router.next_links(t.at("leaf0"), far).size() == 8);
  CHECK(names(t, router.next_links(t.at("spine5"), far)) == std::vector<std::string>{"spine5->leaf31"});
  // All 1024 NICs share their leaves' 32 tables.
  for (std::uint64_t h = 0; h < 64; ++h) router.route(t.at(nic(h * 16)), far, h);
  CHECK(router.distance_tables() <= 32);
}

TEST_CASE("a k-ary 3-tier fabric (k = 8): 2 links on a leaf, 4 in a pod, 6 across pods") {
  const Topology t = build_cluster(k_ary_3_tier(8));
  Router router(t);
  const VertexId src = t.at("n0.nic0");
  const std::map<std::string, std::size_t> expected = {
      {"n3.nic0", 2}, {"n4.nic0", 4}, {"n15.nic0", 4}, {"n16.nic0", 6}, {"n127.nic0", 6}};
  for (const auto& [name, links] : expected) {
    const VertexId dst = t.at(name);
    for (std::uint64_t h = 0; h < 50; ++h) {
      const auto& r = router.route(src, dst, h);
      CHECK(r.size() == links);
      check_path(t, r, src, dst);
    }
  }
  // Across pods every (spine, core) pair of the source pod is used: 4 spines x 4 cores.
  std::set<std::pair<VertexId, VertexId>> paths;
  for (std::uint64_t h = 0; h < 2000; ++h) {
    const auto& r = router.route(src, t.at("n127.nic0"), h);
    paths.insert({t.link(r[1]).to, t.link(r[2]).to});
    CHECK(t.link(r[2]).cls == LinkClass::kSpineCore);
  }
  CHECK(paths.size() == 16);
}

TEST_CASE("the Router's hop counts equal Boost.Graph's breadth-first search on a Clos fabric") {
  const Topology t = build_cluster(k_ary_3_tier(8));
  Router router(t);
  std::vector<VertexId> nics;
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    if (t.vertex(v).kind == VertexKind::kNic) nics.push_back(v);
  }
  REQUIRE(nics.size() == 128);
  const Graph& g = t.graph();
  for (VertexId s : nics) {
    std::vector<std::uint32_t> dist(boost::num_vertices(g), 0);
    boost::breadth_first_search(
        g, s, boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
    for (VertexId d : nics) CHECK(router.hop_count(s, d) == dist[d]);
  }
}

TEST_CASE("ECMP spreads flows between two hosts evenly over the spines") {
  const Topology t = build_cluster(example_fabric());
  Router router(t);
  const VertexId src = t.at("n0.nic0");
  const VertexId dst = t.at("n1023.nic0");
  constexpr int kFlows = 8000;
  std::map<std::string, int> per_spine;
  for (std::uint64_t h = 0; h < kFlows; ++h) ++per_spine[t.vertex(t.link(router.route(src, dst, h)[1]).to).name];
  REQUIRE(per_spine.size() == 8);  // every spine is used
  const double expected = kFlows / 8.0;
  double chi_square = 0;
  int lo = kFlows;
  int hi = 0;
  for (const auto& [spine, n] : per_spine) {
    chi_square += (n - expected) * (n - expected) / expected;
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  MESSAGE("spine loads " << lo << ".." << hi << ", chi-square " << chi_square << " (7 dof)");
  CHECK(chi_square < 24.32);  // the 0.1% critical value for 7 degrees of freedom
  CHECK(static_cast<double>(hi) / lo < 1.2);
}

TEST_CASE("ECMP uses every parallel cable between a leaf and a spine") {
  ClusterSpec spec = example_fabric();
  spec.nodes = 64;
  spec.fabric.spines = 2;
  spec.fabric.links_per_leaf_spine = 3;
  const Topology t = build_cluster(spec);
  Router router(t);
  std::set<LinkId> up;
  std::set<LinkId> down;
  for (std::uint64_t h = 0; h < 600; ++h) {
    const auto& r = router.route(t.at("n0.nic0"), t.at("n63.nic0"), h);
    up.insert(r[1]);
    down.insert(r[2]);
  }
  CHECK(up.size() == 6);  // 2 spines x 3 cables
  CHECK(down.size() == 6);
}

TEST_CASE("routes are deterministic: same (src, dst, hash), same links, in any Router") {
  const Topology t = build_cluster(k_ary_3_tier(8));
  Router a(t);
  Router b(t, 1);  // a budget below one table: every new destination evicts the last
  std::mt19937_64 rng(42);
  std::vector<std::tuple<VertexId, VertexId, std::uint64_t>> flows;
  for (int i = 0; i < 500; ++i) {
    flows.emplace_back(t.at(nic(rng() % 128)), t.at(nic(rng() % 128)), rng());
  }
  for (const auto& [s, d, h] : flows) {
    const std::vector<LinkId> first = a.route(s, d, h);
    CHECK(&a.route(s, d, h) == &a.route(s, d, h));  // cached
    CHECK(b.route(s, d, h) == first);
  }
  CHECK(b.distance_tables() == 1);
  a.clear_routes();
  CHECK(a.cached_routes() == 0);
  for (const auto& [s, d, h] : flows) CHECK(a.route(s, d, h) == b.route(s, d, h));
  CHECK(ecmp_mix(1, 0) != ecmp_mix(1, 1));
  CHECK(ecmp_mix(1, 0) != ecmp_mix(2, 0));
}

TEST_CASE("route_into gives route()'s links and keeps nothing") {
  for (auto routing : {fathom::topo::Routing::kEcmpHash, fathom::topo::Routing::kDestination}) {
    Topology t = build_cluster(k_ary_3_tier(8));
    t.routing = routing;
    Router cached(t);
    Router uncached(t);
    std::mt19937_64 rng(7);
    std::vector<LinkId> out{99, 98};  // replaced, not appended to
    for (int i = 0; i < 500; ++i) {
      const VertexId s = t.at(nic(rng() % 128));
      const VertexId d = t.at(nic(rng() % 128));
      const std::uint64_t h = rng();
      uncached.route_into(s, d, h, out);
      CHECK(out == cached.route(s, d, h));
    }
    CHECK(uncached.cached_routes() == 0);
    CHECK(cached.cached_routes() > 0);
    CHECK_THROWS_AS(uncached.route_into(0, static_cast<VertexId>(t.vertices().size()), 1, out), std::invalid_argument);
  }
}

TEST_CASE("unreachable destinations and unknown vertices throw, naming them") {
  Topology t;
  const VertexId a = t.add_vertex("a", VertexKind::kSwitch, 1);
  const VertexId b = t.add_vertex("b", VertexKind::kSwitch, 1);
  const VertexId island = t.add_vertex("island", VertexKind::kSwitch, 1);
  t.add_link(a, b, 1e9, 10, LinkClass::kLeafSpine);  // one way only
  Router router(t);
  CHECK(router.route(a, b, 0).size() == 1);
  CHECK(error_of([&] { router.route(b, a, 0); }) == "Router: no route from \"b\" to \"a\"");
  CHECK(error_of([&] { router.route(a, island, 3); }) == "Router: no route from \"a\" to \"island\"");
  CHECK(error_of([&] { router.next_links(island, a); }).find("\"island\" to \"a\"") != std::string::npos);
  CHECK(!router.hop_count(b, a).has_value());
  CHECK(error_of([&] { router.route(a, 99, 0); }).find("vertex id 99 does not exist") != std::string::npos);
}

TEST_CASE("GPUs never forward, and two GPUs sharing a NIC talk over NVLink, not PCIe") {
  ClusterSpec spec = rail_cluster(2);
  spec.node.nics = 4;  // GPUs 2k and 2k+1 share NIC k
  spec.fabric.kind = FabricKind::kFatTree;
  const Topology t = build_cluster(spec);
  Router router(t);
  const VertexId g0 = t.at("n0.gpu0");
  const VertexId g1 = t.at("n0.gpu1");
  CHECK(names(t, router.next_links(g0, g1)) == std::vector<std::string>{"n0.gpu0->n0.nvswitch"});
  for (std::uint64_t h = 0; h < 100; ++h) {
    CHECK(names(t, router.route(g0, g1, h)) ==
          std::vector<std::string>{"n0.gpu0->n0.nvswitch", "n0.nvswitch->n0.gpu1"});
  }
  // NIC to NIC inside a node goes through the leaf, not GPU memory and NVLink.
  CHECK(names(t, router.route(t.at("n0.nic0"), t.at("n0.nic1"), 5)) ==
        std::vector<std::string>{"n0.nic0->leaf0", "leaf0->n0.nic1"});
  // A GPU reaches a GPU of another node through its own NIC and the peer's.
  const auto& r = router.route(g1, t.at("n1.gpu6"), 1);
  CHECK(names(t, r) ==
        std::vector<std::string>{"n0.gpu1->n0.nic0", "n0.nic0->leaf0", "leaf0->n1.nic3", "n1.nic3->n1.gpu6"});
}

TEST_CASE("routes across a rail-optimised fabric") {
  const Topology t = build_cluster(rail_cluster(64));
  Router router(t);
  // Same rail, other leaf: up to a spine and down the rail.
  const auto& same_rail = router.route(t.at("n0.nic3"), t.at("n63.nic3"), 11);
  REQUIRE(same_rail.size() == 4);
  CHECK(t.vertex(t.link(same_rail[0]).to).name == "leaf6");
  CHECK(t.vertex(t.link(same_rail[2]).to).name == "leaf7");
  // GPU to GPU on other rails and nodes: 6 links, no GPU in the middle, spread over all spines.
  const VertexId src = t.at("n0.gpu0");
  const VertexId dst = t.at("n40.gpu5");
  std::set<VertexId> spines;
  for (std::uint64_t h = 0; h < 1000; ++h) {
    const auto& r = router.route(src, dst, h);
    REQUIRE(r.size() == 6);
    check_path(t, r, src, dst);
    for (std::size_t i = 0; i + 1 < r.size(); ++i) CHECK(t.vertex(t.link(r[i]).to).kind != VertexKind::kGpu);
    CHECK(t.vertex(t.link(r[0]).to).name == "n0.nic0");
    CHECK(t.vertex(t.link(r[1]).to).name == "leaf0");
    CHECK(t.vertex(t.link(r[3]).to).name == "leaf11");
    CHECK(t.vertex(t.link(r[4]).to).name == "n40.nic5");
    spines.insert(t.link(r[2]).to);
  }
  CHECK(spines.size() == 8);  // the fewest spines: 16 leaves x 32 up ports over 8 spines of 64 ports
  // Inside a node, GPU to GPU is two NVLink hops.
  CHECK(router.route(src, t.at("n0.gpu7"), 0).size() == 2);
}

TEST_CASE("a search stopped early resumes: routes do not depend on which sources were asked first") {
  // GPU destinations of a rail-optimised cluster: asked first from their own node (the search
  // stops after the node), then from other nodes (it resumes), in a router with room for every
  // table and in one with room for a few (small tables recycled, large ones evicted); a fresh
  // router asked in the opposite order must give the same routes, as must spread().
  const Topology t = build_cluster(rail_cluster(64));
  std::vector<VertexId> gpus;
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    if (t.vertex(v).kind == VertexKind::kGpu) gpus.push_back(v);
  }
  std::mt19937_64 rng(5);
  std::vector<std::tuple<VertexId, VertexId, std::uint64_t>> local, remote;
  for (int i = 0; i < 400; ++i) {
    const std::size_t d = rng() % gpus.size();
    const VertexId dst = gpus[d];
    // Another GPU of dst's node (GPUs are listed node by node, 8 each).
    const std::size_t first = d / 8 * 8;
    const VertexId near = gpus[first + (d - first + 1 + rng() % 7) % 8];
    REQUIRE(t.vertex(near).node == t.vertex(dst).node);
    local.emplace_back(near, dst, rng());
    remote.emplace_back(gpus[rng() % gpus.size()], dst, rng());
  }
  const std::size_t table = 2 * t.vertices().size() * sizeof(std::uint16_t);
  for (const std::size_t budget : {Router::kDefaultTableBudgetBytes, 3 * table}) {
    CAPTURE(budget);
    Router near_first(t, budget);
    Router far_first(t, budget);
    std::vector<std::vector<LinkId>> a, b_remote, b_local;
    for (const auto& [s, d, h] : local) a.push_back(near_first.route(s, d, h));
    for (const auto& [s, d, h] : remote) a.push_back(near_first.route(s, d, h));
    for (const auto& [s, d, h] : remote) b_remote.push_back(far_first.route(s, d, h));
    for (const auto& [s, d, h] : local) b_local.push_back(far_first.route(s, d, h));
    std::vector<std::vector<LinkId>> b = b_local;
    b.insert(b.end(), b_remote.begin(), b_remote.end());
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
    for (std::size_t i = 0; i < local.size(); ++i) {
      CHECK(a[i].size() == 2);  // GPU to GPU inside a node: two NVLink hops
      check_path(t, a[i], std::get<0>(local[i]), std::get<1>(local[i]));
    }
    for (std::size_t i = 0; i < remote.size(); ++i) {
      const auto& [s, d, h] = remote[i];
      if (s != d) check_path(t, a[local.size() + i], s, d);
      const auto hops = far_first.hop_count(s, d);
      REQUIRE(hops.has_value());
      CHECK(*hops == a[local.size() + i].size());
    }
  }
}

TEST_CASE("performance sanity: 16,384 random pairs on a 16,384-host 2-tier fabric") {
  ClusterSpec spec = example_fabric();
  spec.nodes = 16384;
  spec.fabric.hosts_per_leaf = 64;
  spec.fabric.spines = 64;
  const auto build_start = std::chrono::steady_clock::now();
  const Topology t = build_cluster(spec);
  const auto route_start = std::chrono::steady_clock::now();
  const std::clock_t route_cpu_start = std::clock();
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{0, 256, 64});
  Router router(t);
  std::mt19937_64 rng(7);
  std::size_t links = 0;
  for (int i = 0; i < 16384; ++i) {
    const auto src = static_cast<VertexId>(rng() % 16384);
    const auto dst = static_cast<VertexId>(rng() % 16384);
    const auto& r = router.route(src, dst, rng());
    CHECK((r.size() == 0 || r.size() == 2 || r.size() == 4));
    links += r.size();
  }
  const auto end = std::chrono::steady_clock::now();
  const double route_cpu_ms = 1e3 * static_cast<double>(std::clock() - route_cpu_start) / CLOCKS_PER_SEC;
  const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  MESSAGE("16,384-host fabric: built in " << ms(route_start - build_start) << " ms; 16,384 routes (" << links
                                          << " links) in " << ms(end - route_start) << " ms (" << route_cpu_ms
                                          << " ms of CPU) with " << router.distance_tables() << " distance tables");
  CHECK(router.distance_tables() <= 256);
}

TEST_CASE("D-mod-K: every flow to one destination takes one spine; consecutive destinations spread") {
  auto spec = example_fabric();
  spec.fabric.routing = Routing::kDestination;
  const Topology t = build_cluster(spec);
  Router router(t);
  auto spine_of = [&](VertexId src, VertexId dst, std::uint64_t hash) {
    return t.vertex(t.link(router.route(src, dst, hash)[1]).to).name;
  };
  // The flow hash and the source do not matter: the destination picks the path.
  const VertexId dst = t.at(nic(1023));
  const std::string spine = spine_of(t.at(nic(0)), dst, 0);
  for (std::uint64_t h = 1; h < 50; ++h) CHECK(spine_of(t.at(nic(h % 32)), dst, h) == spine);
  // Eight hosts of one leaf sending to eight consecutive hosts of another leave on eight
  // different spines: a shift permutation meets no collision.
  std::set<std::string> spines;
  for (int i = 0; i < 8; ++i) spines.insert(spine_of(t.at(nic(static_cast<std::uint64_t>(i))), t.at(nic(32 + i)), 99));
  CHECK(spines.size() == 8);
  // The index is the host port: leaf x 32 + port, here the node number.
  CHECK(router.destination_index(dst) == 1023);
  CHECK(router.destination_index(t.at(nic(37))) == 37);
  // A leg of a longer route branches by the final destination's index.
  const VertexId leaf = t.link(t.out_links(dst).front()).to;
  CHECK(t.link(router.route(t.at(nic(0)), leaf, 5, router.destination_index(dst))[1]).to ==
        t.link(router.route(t.at(nic(0)), dst, 5)[1]).to);
}

namespace {

// The most flows any one switch-to-switch link carries in one shift permutation, over every
// shift: node i's j-th endpoint of `kind` sends to node (i + k) mod N's j-th, for every
// k in 1..N-1 (the flows of one k run together). Up links (towards a higher tier) and down links
// apart.
struct ShiftLoad {
  int up = 0;
  int down = 0;
  std::size_t flows = 0;
};

ShiftLoad worst_shift_load(const Topology& t, VertexKind kind) {
  Router router(t);
  std::map<std::int32_t, std::vector<VertexId>> by_node;
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    if (t.vertex(v).kind == kind) by_node[t.vertex(v).node].push_back(v);
  }
  std::vector<std::vector<VertexId>> nodes;
  for (auto& [node, endpoints] : by_node) nodes.push_back(std::move(endpoints));
  const std::size_t n = nodes.size();
  ShiftLoad worst;
  std::vector<int> load(t.links().size(), 0);
  for (std::size_t k = 1; k < n; ++k) {
    std::fill(load.begin(), load.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < nodes[i].size(); ++j) {
        const auto& r = router.route(nodes[i][j], nodes[(i + k) % n][j], i * 1000 + j);
        ++worst.flows;
        for (LinkId l : r) {
          const Link& link = t.link(l);
          if (link.cls != LinkClass::kLeafSpine && link.cls != LinkClass::kSpineCore) continue;
          const bool up = t.vertex(link.from).tier < t.vertex(link.to).tier;
          int& most = up ? worst.up : worst.down;
          most = std::max(most, ++load[l]);
        }
      }
    }
    router.clear_routes();
  }
  return worst;
}

// DGX-like nodes (8 GPUs, 8 NICs) on a non-blocking fabric whose counts derive from `radix`.
ClusterSpec dgx_on_radix(int nodes, int tiers, int radix, FabricKind kind = FabricKind::kFatTree) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.fabric.kind = kind;
  spec.fabric.tiers = tiers;
  spec.fabric.radix = radix;
  spec.fabric.tier.assign(static_cast<std::size_t>(tiers), TierSpec{50e9, 600});
  spec.fabric.routing = Routing::kDestination;
  return spec;
}

}  // namespace

TEST_CASE("D-mod-K on non-blocking fat-trees: every shift permutation puts at most one flow on each link") {
  struct Case {
    std::string name;
    ClusterSpec spec;
    VertexKind endpoint;
  };
  std::vector<Case> cases;
  cases.push_back({"2-tier, 32 DGX nodes, radix 32 (16 leaves x 16, 8 spines, 2 cables per pair), GPU to GPU",
                   dgx_on_radix(32, 2, 32), VertexKind::kGpu});
  cases.push_back({"the same, NIC to NIC", dgx_on_radix(32, 2, 32), VertexKind::kNic});
  ClusterSpec single = dgx_on_radix(32, 2, 32);
  single.fabric.links_per_leaf_spine = 1;
  cases.push_back({"2-tier, 1 cable per leaf-spine pair (16 spines), GPU to GPU", single, VertexKind::kGpu});
  ClusterSpec k8 = k_ary_3_tier(8);
  k8.fabric.routing = Routing::kDestination;
  cases.push_back({"3-tier k-ary, k = 8: 128 single-NIC hosts", k8, VertexKind::kNic});
  cases.push_back(
      {"3-tier, 128 DGX nodes, radix 16 (16 pods, 64 cores), GPU to GPU", dgx_on_radix(128, 3, 16), VertexKind::kGpu});
  cases.push_back({"rail-optimised, 64 DGX nodes, radix 32 (8 rails x 4 leaves, 16 spines), GPU to GPU",
                   dgx_on_radix(64, 2, 32, FabricKind::kRailOptimized), VertexKind::kGpu});
  cases.push_back(
      {"3-tier rail-optimised, 64 DGX nodes, radix 32 (2 pods of 8 rails x 2 leaves, 16 spines each; "
       "16 cores, 16 cables per spine-core pair), GPU to GPU",
       dgx_on_radix(64, 3, 32, FabricKind::kRailOptimized), VertexKind::kGpu});
  ClusterSpec k_ary_cores = dgx_on_radix(64, 3, 32, FabricKind::kRailOptimized);
  k_ary_cores.fabric.links_per_spine_core = 1;
  cases.push_back({"the same with 1 cable per spine-core pair (256 cores)", k_ary_cores, VertexKind::kGpu});
  cases.push_back(
      {"3-tier rail-optimised, 64 DGX nodes, radix 16 (8 pods of 8 rails x 1 leaf; 32 cores, 2 cables "
       "per spine-core pair), NIC to NIC",
       dgx_on_radix(64, 3, 16, FabricKind::kRailOptimized), VertexKind::kNic});
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const Topology t = build_cluster(c.spec);
    for (double o : t.summary.oversubscription_per_tier) REQUIRE(o == doctest::Approx(1.0));
    const ShiftLoad load = worst_shift_load(t, c.endpoint);
    MESSAGE(c.name << ": " << load.flows << " flows; most flows on one link: " << load.up << " up, " << load.down
                   << " down");
    CHECK(load.up == 1);
    CHECK(load.down == 1);
  }
  // The index counts host ports by leaf and port, not vertex ids: on the rail-optimised fabric
  // (32 host ports per leaf, 2 leaves per rail) n40.nic5 is port 8 of leaf 5 x 2 + 1, and its GPU
  // takes its index.
  const Topology rails = build_cluster(rail_cluster(64));
  const Router numbered(rails);
  CHECK(numbered.destination_index(rails.at("n40.nic5")) == 11 * 32 + 8);
  CHECK(numbered.destination_index(rails.at("n40.gpu5")) == 11 * 32 + 8);
  CHECK(numbered.destination_index(rails.at("n0.gpu0")) == 0);
  // The check can fail: ECMP's per-flow hash does collide on the same fabric.
  ClusterSpec ecmp = dgx_on_radix(32, 2, 32);
  ecmp.fabric.routing = Routing::kEcmpHash;
  CHECK(worst_shift_load(build_cluster(ecmp), VertexKind::kGpu).up > 1);
}

TEST_CASE("spread: adaptive routing's flow-level picture, every shortest path with its fraction of the bytes") {
  // Sum of the fractions per link class, and the fraction on each link, between two hosts.
  struct Seen {
    std::map<LinkClass, double> total;
    std::map<LinkClass, std::set<double>> each;
    std::map<LinkClass, std::size_t> links;
  };
  auto seen = [](const Topology& t, const std::vector<SpreadLink>& spread) {
    Seen s;
    for (const auto& l : spread) {
      const LinkClass cls = t.link(l.link).cls;
      s.total[cls] += l.fraction;
      s.each[cls].insert(l.fraction);
      ++s.links[cls];
    }
    return s;
  };
  SUBCASE("2-tier: an eighth of the flow on each of the 8 spines, up and down") {
    const Topology t = build_cluster(example_fabric());
    Router router(t);
    const VertexId src = t.at(nic(0));
    const VertexId dst = t.at(nic(1023));
    const auto& spread = router.spread(src, dst);
    const Seen s = seen(t, spread);
    CHECK(s.links.at(LinkClass::kHostLeaf) == 2);
    CHECK(s.links.at(LinkClass::kLeafSpine) == 16);
    CHECK(s.total.at(LinkClass::kHostLeaf) == 2.0);
    CHECK(s.total.at(LinkClass::kLeafSpine) == doctest::Approx(2.0));
    CHECK(s.each.at(LinkClass::kLeafSpine) == std::set<double>{1.0 / 8});
    // In hop order: the NIC's link first, the destination's last.
    CHECK(t.link(spread.front().link).from == src);
    CHECK(t.link(spread.back().link).to == dst);
    // Cached: the same vector; and a host under the same leaf has one path.
    CHECK(&router.spread(src, dst) == &spread);
    CHECK(router.spread(src, t.at(nic(1))).size() == 2);
    CHECK(router.spread(src, src).empty());
  }
  SUBCASE("2-tier with 2 cables per leaf-spine pair: the flow splits over the cables too") {
    ClusterSpec spec = dgx_on_radix(32, 2, 32);
    spec.fabric.links_per_leaf_spine = 2;
    const Topology t = build_cluster(spec);
    Router router(t);
    const Seen s = seen(t, router.spread(t.at("n0.gpu0"), t.at("n31.gpu0")));
    // 8 spines x 2 cables up, and down: a sixteenth on each.
    CHECK(s.links.at(LinkClass::kLeafSpine) == 32);
    CHECK(s.each.at(LinkClass::kLeafSpine) == std::set<double>{1.0 / 16});
    CHECK(s.total.at(LinkClass::kPcie) == 2.0);
  }
  SUBCASE("3-tier k = 8: 1/4 per spine, 1/16 per core, every hop summing to 1") {
    const Topology t = build_cluster(k_ary_3_tier(8));
    Router router(t);
    const auto& spread = router.spread(t.at(nic(0)), t.at(nic(127)));
    const Seen s = seen(t, spread);
    CHECK(s.links.at(LinkClass::kLeafSpine) == 8);
    CHECK(s.links.at(LinkClass::kSpineCore) == 32);
    CHECK(s.each.at(LinkClass::kLeafSpine) == std::set<double>{0.25});
    CHECK(s.each.at(LinkClass::kSpineCore) == std::set<double>{1.0 / 16});
    CHECK(s.total.at(LinkClass::kSpineCore) == doctest::Approx(2.0));
  }
  SUBCASE("the expected load of ECMP: many hashed flows load each spine about as spread() says") {
    const Topology t = build_cluster(example_fabric());
    Router router(t);
    const VertexId src = t.at(nic(0));
    const VertexId dst = t.at(nic(1023));
    std::map<LinkId, int> hits;
    constexpr int kFlows = 8000;
    for (int h = 0; h < kFlows; ++h) ++hits[router.route(src, dst, static_cast<std::uint64_t>(h))[1]];
    for (const auto& l : router.spread(src, dst)) {
      if (t.link(l.link).cls != LinkClass::kLeafSpine ||
          t.link(l.link).from != t.link(router.spread(src, dst)[0].link).to)
        continue;
      CHECK(hits[l.link] == doctest::Approx(l.fraction * kFlows).epsilon(0.1));
    }
  }
}

TEST_CASE("composed distance tables route exactly as a table per destination does") {
  // Every (source, destination) pair of small clusters of several node shapes: GPUs on one NIC,
  // two GPUs per NIC, two NICs per GPU, an NVLink domain over two nodes, a rail-optimised fabric,
  // plain servers on a 3-tier fabric, and D-mod-K routing. The composed router is also run with
  // room for three tables only, so that tables a route is using are kept while others go.
  struct Shape {
    std::string name;
    ClusterSpec spec;
  };
  std::vector<Shape> shapes;
  shapes.push_back({"rail-optimised", rail_cluster(4)});
  ClusterSpec shared_nic = rail_cluster(4);
  shared_nic.fabric.kind = FabricKind::kFatTree;
  shared_nic.node.nics = 4;
  shapes.push_back({"two GPUs per NIC", shared_nic});
  ClusterSpec two_nics = shared_nic;
  two_nics.node.gpus = 4;
  two_nics.node.nics = 8;
  shapes.push_back({"two NICs per GPU", two_nics});
  ClusterSpec domain = rail_cluster(4);
  domain.node.nvlink_domain_nodes = 2;
  shapes.push_back({"NVLink domain of two nodes", domain});
  shapes.push_back({"plain servers, 3 tiers", k_ary_3_tier(4)});
  ClusterSpec dmodk = shared_nic;
  dmodk.fabric.routing = Routing::kDestination;
  shapes.push_back({"D-mod-K", dmodk});
  for (const Shape& shape : shapes) {
    CAPTURE(shape.name);
    const Topology t = build_cluster(shape.spec);
    const std::size_t n = t.vertices().size();
    Router reference(t, Router::kDefaultTableBudgetBytes, Router::Tables::kPerDestination);
    Router composed(t);
    Router tight(t, 3 * 2 * n * sizeof(std::uint16_t));
    std::size_t routes = 0;
    for (VertexId d = 0; d < n; ++d) {
      for (VertexId s = 0; s < n; ++s) {
        const auto hops = reference.hop_count(s, d);
        REQUIRE(composed.hop_count(s, d) == hops);
        REQUIRE(tight.hop_count(s, d) == hops);
        if (!hops || s == d) continue;
        for (std::uint64_t h = 0; h < 3; ++h) {
          const std::vector<LinkId> expected = reference.route(s, d, h);
          REQUIRE(composed.route(s, d, h) == expected);
          REQUIRE(tight.route(s, d, h) == expected);
          ++routes;
        }
        REQUIRE(composed.next_links(s, d) == reference.next_links(s, d));
        const auto& a = composed.spread(s, d);
        const auto& b = reference.spread(s, d);
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
          CHECK(a[i].link == b[i].link);
          CHECK(a[i].fraction == b[i].fraction);
        }
      }
    }
    MESSAGE(shape.name << ": " << n << " vertices, " << routes << " routes; tables: " << reference.distance_tables()
                       << " one per destination, " << composed.distance_tables() << " composed");
    CHECK(routes > 0);
  }
}

TEST_CASE("the GPUs of a cluster share their leaves' distance tables") {
  // Routes from one GPU to every other GPU of a 64-node rail-optimised cluster: 511
  // destinations, served by the 16 leaves' tables and small tables for NVSwitch planes (the
  // route inside the node), instead of a table per GPU.
  const Topology t = build_cluster(rail_cluster(64));
  Router router(t);
  const VertexId src = t.at("n0.gpu0");
  std::size_t gpus = 0;
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    if (t.vertex(v).kind != VertexKind::kGpu || v == src) continue;
    router.route(src, v, v);
    ++gpus;
  }
  CHECK(gpus == 511);
  CHECK(t.summary.switches_per_tier.at(1) == 16);
  MESSAGE(router.distance_tables() << " distance tables for 511 GPU destinations");
  CHECK(router.distance_tables() <= 16 + 64);
}
