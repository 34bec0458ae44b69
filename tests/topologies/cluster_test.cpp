// build_cluster(): counts, names, wiring and summary figures of every fabric kind, and every
// validation error naming its field.
#include "topologies/cluster.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/errors.hpp"
#include "tests/topologies/fixtures.hpp"

using namespace fathom::topo;
using fathom::test::error_of;
using fathom::test::example_fabric;
using fathom::test::nic;

namespace {

// A DGX-H100-like node: 8 GPUs on 4 NVSwitch chips with NVLS, 8 x 400 Gb/s NICs.
ClusterSpec dgx_cluster(int nodes) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = 8;
  spec.node.nics = 8;
  spec.node.nvswitches = 4;
  spec.node.nvls = true;
  spec.fabric.hosts_per_leaf = 32;
  spec.fabric.spines = 4;
  spec.fabric.tier = {{50e9, 600}, {50e9, 600}};
  return spec;
}

// Hosts with one NIC each on a radix-k fabric, every count derived.
ClusterSpec radix_fabric(int nodes, int tiers, int radix, double oversubscription = 1.0) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.node.gpus = 0;
  spec.node.nics = 1;
  spec.fabric.tiers = tiers;
  spec.fabric.radix = radix;
  spec.fabric.oversubscription = oversubscription;
  spec.fabric.tier.assign(static_cast<std::size_t>(tiers), TierSpec{50e9, 500});
  return spec;
}

// The vertices at the other end of v's out-links, by name.
std::multiset<std::string> neighbours(const Topology& t, VertexId v) {
  std::multiset<std::string> out;
  for (LinkId l : t.out_links(v)) out.insert(t.vertex(t.link(l).to).name);
  return out;
}

// The one leaf a NIC is cabled to.
std::string leaf_of(const Topology& t, const std::string& nic) {
  std::string leaf;
  int leaves = 0;
  for (LinkId l : t.out_links(t.at(nic))) {
    if (t.link(l).cls == LinkClass::kHostLeaf) {
      leaf = t.vertex(t.link(l).to).name;
      ++leaves;
    }
  }
  REQUIRE(leaves == 1);
  return leaf;
}

std::size_t count_kind(const Topology& t, VertexKind kind) {
  std::size_t n = 0;
  for (const auto& v : t.vertices()) n += v.kind == kind ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the example fabric: 1024 hosts, 32 leaves x 32, 8 spines, non-blocking") {
  const Topology t = build_cluster(example_fabric());
  CHECK(t.vertices().size() == 1024 + 32 + 8);
  CHECK(t.links().size() == 2 * (1024 + 32 * 8));
  const TopologySummary& s = t.summary;
  CHECK(s.switches_per_tier == std::vector<std::size_t>{0, 32, 8});
  CHECK(s.cables_per_tier == std::vector<std::size_t>{0, 1024, 256});
  CHECK(s.endpoints == 1024);
  CHECK(s.bisection_bytes_per_s == doctest::Approx(512 * 12.5e9));
  REQUIRE(s.oversubscription_per_tier.size() == 3);
  CHECK(s.oversubscription_per_tier[1] == doctest::Approx(1.0));
  CHECK(s.oversubscription_per_tier[2] == doctest::Approx(1.0));
  CHECK(s.description == "1024 nodes, 1 NIC each; 2-tier fat-tree, 32 leaves x 32 host ports, 8 spines");

  for (const Link& l : t.links()) {
    CHECK(l.latency_ns == 1000);
    CHECK(l.bytes_per_s == (l.cls == LinkClass::kHostLeaf ? 12.5e9 : 50e9));
  }
  CHECK(leaf_of(t, "n0.nic0") == "leaf0");
  CHECK(leaf_of(t, "n31.nic0") == "leaf0");
  CHECK(leaf_of(t, "n32.nic0") == "leaf1");
  CHECK(leaf_of(t, "n1023.nic0") == "leaf31");
  const VertexId leaf7 = t.at("leaf7");
  CHECK(t.vertex(leaf7).tier == 1);
  CHECK(t.vertex(t.at("spine7")).tier == 2);
  CHECK(t.out_links(leaf7).size() == 32 + 8);
  CHECK(t.out_links(t.at("spine3")).size() == 32);
  CHECK(!t.find("spine8").has_value());

  const FabricLayout layout = layout_fabric(example_fabric());
  CHECK(layout.leaves == 32);
  CHECK(layout.spines == 8);
  CHECK(layout.hosts_per_leaf == 32);
}

TEST_CASE("building is deterministic: same spec, same names and links") {
  const Topology a = build_cluster(dgx_cluster(4));
  const Topology b = build_cluster(dgx_cluster(4));
  REQUIRE(a.links().size() == b.links().size());
  for (std::size_t l = 0; l < a.links().size(); ++l) CHECK(a.links()[l].name == b.links()[l].name);
}

TEST_CASE("a DGX-H100-like node: 8 GPUs on an NVLS NVSwitch plane, GPU j on NIC j") {
  const Topology t = build_cluster(dgx_cluster(2));
  const VertexId sw = t.at("n0.nvswitch");
  CHECK(t.vertex(sw).kind == VertexKind::kNvSwitch);
  CHECK(t.vertex(sw).tier == 0);
  CHECK(t.vertex(sw).node == 0);
  CHECK(t.vertex(sw).in_switch_reduction);
  CHECK(t.vertex(t.at("n1.nvswitch")).node == 1);
  const VertexId g3 = t.at("n1.gpu3");
  CHECK(t.vertex(g3).kind == VertexKind::kGpu);
  CHECK(t.vertex(g3).node == 1);
  CHECK(neighbours(t, g3) == std::multiset<std::string>{"n1.nvswitch", "n1.nic3"});
  for (LinkId l : t.out_links(g3)) {
    const Link& link = t.link(l);
    if (link.cls == LinkClass::kNvLink) {
      CHECK(link.bytes_per_s == 450e9);
      CHECK(link.latency_ns == 500);
    } else {
      CHECK(link.cls == LinkClass::kPcie);
      CHECK(link.bytes_per_s == 64e9);
      CHECK(link.latency_ns == 200);
    }
  }
  CHECK(t.out_links(sw).size() == 8);
  CHECK(neighbours(t, t.at("n0.nic5")) == std::multiset<std::string>{"n0.gpu5", "leaf0"});
  CHECK(count_kind(t, VertexKind::kGpu) == 16);
  CHECK(count_kind(t, VertexKind::kNic) == 16);
  CHECK(count_kind(t, VertexKind::kNvSwitch) == 2);

  const TopologySummary& s = t.summary;
  CHECK(s.switches_per_tier == std::vector<std::size_t>{8, 1, 4});  // 2 nodes x 4 NVSwitch chips
  CHECK(s.cables_per_tier == std::vector<std::size_t>{16, 16, 4});
  CHECK(s.endpoints == 32);
  // 16 NICs x 50e9 / 2 against 4 uplinks x 50e9 / 2: the leaf's 4 uplinks are the cut.
  CHECK(s.bisection_bytes_per_s == doctest::Approx(100e9));
  CHECK(s.oversubscription_per_tier[1] == doctest::Approx(4.0));  // 16 NICs down, 4 up
  CHECK(s.description.find("2 nodes x 8 GPUs (NVSwitch per node, NVLS), 8 NICs each") == 0);
}

TEST_CASE("fewer NICs than GPUs: GPU j on NIC j * nics / gpus; more: NIC k on GPU k * gpus / nics") {
  ClusterSpec spec = dgx_cluster(1);
  spec.node.nics = 4;
  Topology t = build_cluster(spec);
  CHECK(neighbours(t, t.at("n0.gpu0")).count("n0.nic0") == 1);
  CHECK(neighbours(t, t.at("n0.gpu1")).count("n0.nic0") == 1);
  CHECK(neighbours(t, t.at("n0.gpu7")).count("n0.nic3") == 1);
  CHECK(neighbours(t, t.at("n0.nic2")) == std::multiset<std::string>{"n0.gpu4", "n0.gpu5", "leaf0"});

  spec.node.gpus = 2;
  t = build_cluster(spec);
  CHECK(neighbours(t, t.at("n0.gpu0")) == std::multiset<std::string>{"n0.nvswitch", "n0.nic0", "n0.nic1"});
  CHECK(neighbours(t, t.at("n0.gpu1")) == std::multiset<std::string>{"n0.nvswitch", "n0.nic2", "n0.nic3"});
}

TEST_CASE("NVLink domains spanning nodes share one NVSwitch plane") {
  ClusterSpec spec = dgx_cluster(36);
  spec.node.gpus = 4;
  spec.node.nics = 4;
  spec.node.nvlink_domain_nodes = 18;  // NVL72: 18 trays x 4 GPUs
  spec.node.nvswitches = 18;           // per domain
  spec.fabric.hosts_per_leaf = 72;
  const Topology t = build_cluster(spec);
  CHECK(!t.find("n0.nvswitch").has_value());
  const VertexId d0 = t.at("nvl0.nvswitch");
  const VertexId d1 = t.at("nvl1.nvswitch");
  CHECK(t.vertex(d0).node == 0);
  CHECK(t.vertex(d1).node == 18);
  CHECK(t.vertex(d0).in_switch_reduction);
  CHECK(t.out_links(d0).size() == 72);
  CHECK(neighbours(t, t.at("n17.gpu3")).count("nvl0.nvswitch") == 1);
  CHECK(neighbours(t, t.at("n18.gpu0")).count("nvl1.nvswitch") == 1);
  CHECK(count_kind(t, VertexKind::kNvSwitch) == 2);
  CHECK(t.summary.switches_per_tier[0] == 36);  // 2 domains x 18 chips
  CHECK(t.summary.cables_per_tier[0] == 144);
}

TEST_CASE("an NVLink domain without NICs: no fabric, bisection is half the NVLink capacity") {
  ClusterSpec spec;
  spec.nodes = 18;
  spec.node.gpus = 4;
  spec.node.nics = 0;
  spec.node.nvlink_domain_nodes = 18;
  spec.node.nvswitches = 18;
  const Topology t = build_cluster(spec);
  CHECK(t.vertices().size() == 72 + 1);
  CHECK(t.links().size() == 144);
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{18});
  CHECK(t.summary.cables_per_tier == std::vector<std::size_t>{72});
  CHECK(t.summary.bisection_bytes_per_s == doctest::Approx(36 * 450e9));
  CHECK(t.summary.description == "18 nodes x 4 GPUs (NVLink domains of 18 nodes), 0 NICs each; no scale-out fabric");
}

TEST_CASE("k-ary 3-tier fat-tree, radix 8: 128 hosts, 8 pods, 80 switches") {
  const ClusterSpec spec = radix_fabric(128, 3, 8);
  const FabricLayout layout = layout_fabric(spec);
  CHECK(layout.hosts_per_leaf == 4);
  CHECK(layout.leaves_per_pod == 4);
  CHECK(layout.spines == 4);
  CHECK(layout.pods == 8);
  CHECK(layout.cores == 16);
  CHECK(layout.cores_per_spine == 4);
  const Topology t = build_cluster(spec);
  const TopologySummary& s = t.summary;
  CHECK(s.switches_per_tier == std::vector<std::size_t>{0, 32, 32, 16});
  CHECK(s.switches_per_tier[1] + s.switches_per_tier[2] + s.switches_per_tier[3] == 80);
  CHECK(s.cables_per_tier == std::vector<std::size_t>{0, 128, 128, 128});
  CHECK(t.vertices().size() == 128 + 80);
  CHECK(t.links().size() == 2 * 384);
  CHECK(s.bisection_bytes_per_s == doctest::Approx(64 * 50e9));
  for (double o : s.oversubscription_per_tier) CHECK(o == doctest::Approx(1.0));
  // Every switch uses exactly its 8 ports.
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    if (t.vertex(v).kind == VertexKind::kSwitch) CHECK(t.out_links(v).size() == 8);
  }
  // Leaf 5 is in pod 1; spine s of every pod reaches cores [4s, 4s + 4).
  CHECK(neighbours(t, t.at("leaf5")) == std::multiset<std::string>{"n20.nic0", "n21.nic0", "n22.nic0", "n23.nic0",
                                                                   "spine1.0", "spine1.1", "spine1.2", "spine1.3"});
  CHECK(neighbours(t, t.at("spine7.2")) ==
        std::multiset<std::string>{"leaf28", "leaf29", "leaf30", "leaf31", "core8", "core9", "core10", "core11"});
  std::set<std::string> pods_of_core9;
  for (const auto& n : neighbours(t, t.at("core9"))) pods_of_core9.insert(n.substr(0, n.find('.')));
  CHECK(pods_of_core9.size() == 8);
  CHECK(s.description ==
        "128 nodes, 1 NIC each; 3-tier fat-tree, 8 pods x (4 leaves x 4 host ports, 4 spines), 16 cores");
}

TEST_CASE("3-tier with explicit counts: spine s cables to cores [s*c, (s+1)*c)") {
  ClusterSpec spec = radix_fabric(40, 3, 0);
  spec.fabric.hosts_per_leaf = 10;
  spec.fabric.leaves_per_pod = 2;
  spec.fabric.spines = 2;
  spec.fabric.cores = 6;
  const Topology t = build_cluster(spec);
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{0, 4, 4, 6});
  CHECK(neighbours(t, t.at("spine1.1")) == std::multiset<std::string>{"leaf2", "leaf3", "core3", "core4", "core5"});
  CHECK(t.summary.oversubscription_per_tier[1] == doctest::Approx(5.0));
  CHECK(t.summary.bisection_bytes_per_s == doctest::Approx(4 * 2 * 50e9 / 2));
}

TEST_CASE("a 3:1 oversubscribed radix-64 leaf: 48 hosts down, 16 ports up to the fewest spines") {
  const ClusterSpec spec = radix_fabric(96, 2, 64, 3.0);
  const FabricLayout layout = layout_fabric(spec);
  CHECK(layout.hosts_per_leaf == 48);
  CHECK(layout.leaves == 2);
  // Two leaves of 16 up ports fill 32 spine ports: one spine would take them, but two are the
  // fewest that survive a spine's failure; 8 cables from each leaf to each.
  CHECK(layout.spines == 2);
  CHECK(layout.links_per_leaf_spine == 8);
  const Topology t = build_cluster(spec);
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{0, 2, 2});
  CHECK(t.summary.oversubscription_per_tier[1] == doctest::Approx(3.0));
  CHECK(t.summary.oversubscription_per_tier[2] == doctest::Approx(1.0));
  CHECK(t.out_links(t.at("leaf1")).size() == 64);
  CHECK(neighbours(t, t.at("spine1")).size() == 16);
  // The 32 leaf-spine cables carry less than the 96 NICs: they are the cut.
  CHECK(t.summary.bisection_bytes_per_s == doctest::Approx(16 * 50e9));
  CHECK(t.summary.description.find("2 spines, 8 cables per leaf-spine pair") != std::string::npos);

  // One cable per pair, given: the k-ary layout, a spine per leaf up port.
  ClusterSpec kary = spec;
  kary.fabric.links_per_leaf_spine = 1;
  CHECK(layout_fabric(kary).spines == 16);
  const Topology tk = build_cluster(kary);
  CHECK(tk.summary.switches_per_tier == std::vector<std::size_t>{0, 2, 16});
  CHECK(tk.summary.cables_per_tier == t.summary.cables_per_tier);
  CHECK(tk.summary.bisection_bytes_per_s == doctest::Approx(t.summary.bisection_bytes_per_s));
}

TEST_CASE("the fewest spines: the smallest divisor of the leaf up ports whose cables fit a spine") {
  // Radix 64, non-blocking: 32 up ports per leaf. L leaves need spines s with L x 32 / s <= 64.
  struct Case {
    int leaves;
    int spines;
  };
  for (const Case c : {Case{1, 2}, Case{2, 2}, Case{3, 2}, Case{4, 2}, Case{5, 4}, Case{8, 4}, Case{9, 8}, Case{17, 16},
                       Case{32, 16}, Case{33, 32}, Case{64, 32}}) {
    CAPTURE(c.leaves);
    const ClusterSpec spec = radix_fabric(c.leaves * 32, 2, 64);
    const FabricLayout layout = layout_fabric(spec);
    CHECK(layout.leaves == c.leaves);
    CHECK(layout.spines == c.spines);
    CHECK(layout.links_per_leaf_spine * layout.spines == 32);
    CHECK(layout.leaves * layout.links_per_leaf_spine <= 64);
  }
  // 65 leaves do not fit two tiers of radix 64.
  CHECK_THROWS_WITH_AS(layout_fabric(radix_fabric(65 * 32, 2, 64)),
                       doctest::Contains("fabric.radix: expected at least 65 ports on every spine"),
                       fathom::sim::SpecError);
}

TEST_CASE("radix 64 non-blocking, 2 links per leaf-spine pair: 32 down, 16 spines") {
  ClusterSpec spec = radix_fabric(64, 2, 64);
  spec.fabric.links_per_leaf_spine = 2;
  const Topology t = build_cluster(spec);
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{0, 2, 16});
  CHECK(t.summary.cables_per_tier == std::vector<std::size_t>{0, 64, 64});
  CHECK(neighbours(t, t.at("spine0")) == std::multiset<std::string>{"leaf0", "leaf0", "leaf1", "leaf1"});
  CHECK(t.summary.oversubscription_per_tier[1] == doctest::Approx(1.0));
}

TEST_CASE("rail-optimised: NIC r of every node sits on a leaf of rail r") {
  ClusterSpec spec = dgx_cluster(64);
  spec.fabric.kind = FabricKind::kRailOptimized;
  spec.fabric.spines = 0;
  spec.fabric.radix = 64;  // 32 down, 32 up
  const FabricLayout layout = layout_fabric(spec);
  CHECK(layout.rails == 8);
  CHECK(layout.leaves_per_rail == 2);
  CHECK(layout.leaves == 16);
  // 16 leaves x 32 up ports fill 8 spines of 64 ports, 4 cables from each leaf to each.
  CHECK(layout.spines == 8);
  CHECK(layout.links_per_leaf_spine == 4);
  const Topology t = build_cluster(spec);
  for (int i = 0; i < 64; ++i) {
    for (int r = 0; r < 8; ++r) {
      CHECK(leaf_of(t, nic(static_cast<std::uint64_t>(i), r)) == std::string("leaf") + std::to_string(r * 2 + i / 32));
    }
  }
  // Every leaf holds NICs of one rail only, 32 of them, and reaches every spine.
  for (int l = 0; l < 16; ++l) {
    std::set<std::string> rails;
    int nics = 0;
    int spines = 0;
    for (const auto& n : neighbours(t, t.at(std::string("leaf") + std::to_string(l)))) {
      if (n.find(".nic") != std::string::npos) {
        rails.insert(n.substr(n.find(".nic")));
        ++nics;
      } else if (n.rfind("spine", 0) == 0) {
        ++spines;
      }
    }
    CHECK(rails.size() == 1);
    CHECK(nics == 32);
    CHECK(spines == 32);  // cables: 4 to each of the 8 spines
  }
  CHECK(t.summary.switches_per_tier == std::vector<std::size_t>{256, 16, 8});
  CHECK(t.summary.cables_per_tier == std::vector<std::size_t>{512, 512, 512});
  CHECK(t.summary.bisection_bytes_per_s == doctest::Approx(256 * 50e9));
  CHECK(t.summary.description.find(
            "rail-optimised, 8 rails x 2 leaves x 32 host ports, 8 spines, 4 cables per leaf-spine pair") !=
        std::string::npos);
}

TEST_CASE("3-tier rail-optimised: every pod has each rail's leaves, pods joined by cores; counts by closed form") {
  // Radix R, 8 NICs per node: hosts_per_leaf H = R/2, spines per pod S = R/2, leaves per pod
  // P = R/2, so Lr = P/8 leaves per rail in a pod and Np = Lr x H nodes per pod; pods =
  // ceil(nodes / Np). Each spine has R - P = R/2 ports up; the fewest cores that take them fill
  // their R ports with R/2 / C cables from each of the pods: C = pods / 2 cores per spine (at
  // least 1; the pod counts below keep it a divisor of R/2), cores = S x C. Cables: nodes x 8
  // NIC-leaf, leaves x S leaf-spine, pods x S x R/2 spine-core; bisection: half the smallest
  // tier's capacity.
  struct Case {
    int radix;
    int nodes;
  };
  for (const Case c : {Case{32, 64}, Case{32, 100}, Case{64, 2048}}) {
    CAPTURE(c.radix);
    CAPTURE(c.nodes);
    ClusterSpec spec = dgx_cluster(c.nodes);
    spec.fabric.kind = FabricKind::kRailOptimized;
    spec.fabric.tiers = 3;
    spec.fabric.radix = c.radix;
    spec.fabric.hosts_per_leaf = 0;
    spec.fabric.spines = 0;
    spec.fabric.tier = {{50e9, 600}, {50e9, 600}, {50e9, 600}};
    const std::size_t half = static_cast<std::size_t>(c.radix / 2);
    const std::size_t per_rail = half / 8;
    const std::size_t pod_nodes = per_rail * half;
    const std::size_t pods = (static_cast<std::size_t>(c.nodes) + pod_nodes - 1) / pod_nodes;
    const std::size_t leaves = pods * half;
    const std::size_t cores_per_spine = std::max<std::size_t>(1, pods / 2);
    const std::size_t cores = half * cores_per_spine;
    const FabricLayout layout = layout_fabric(spec);
    CHECK(layout.rails == 8);
    CHECK(static_cast<std::size_t>(layout.leaves_per_rail) == per_rail);
    CHECK(static_cast<std::size_t>(layout.pods) == pods);
    CHECK(static_cast<std::size_t>(layout.leaves) == leaves);
    CHECK(static_cast<std::size_t>(layout.cores) == cores);
    CHECK(static_cast<std::size_t>(layout.links_per_spine_core) == half / cores_per_spine);
    const Topology t = build_cluster(spec);
    const std::size_t ports = static_cast<std::size_t>(c.nodes) * 8;
    CHECK(t.summary.switches_per_tier ==
          std::vector<std::size_t>{static_cast<std::size_t>(c.nodes) * 4, leaves, pods * half, cores});
    CHECK(t.summary.cables_per_tier ==
          std::vector<std::size_t>{ports, ports, leaves * half,
                                   pods * half * (static_cast<std::size_t>(c.radix) - half)});
    const double smallest = static_cast<double>(std::min({ports, leaves * half, pods * half * half}));
    CHECK(t.summary.bisection_bytes_per_s == doctest::Approx(smallest / 2 * 50e9));
    // NIC r of node i: leaf pod x P + r x Lr + (i mod Np) / H.
    for (int i = 0; i < c.nodes; i += std::max(1, c.nodes / 37)) {
      const auto node = static_cast<std::size_t>(i);
      for (int r = 0; r < 8; ++r) {
        const std::size_t leaf =
            node / pod_nodes * half + static_cast<std::size_t>(r) * per_rail + node % pod_nodes / half;
        CHECK(leaf_of(t, nic(node, r)) == "leaf" + std::to_string(leaf));
      }
    }
    CHECK(t.summary.description.find("3-tier rail-optimised, " + std::to_string(pods) + " pods x (8 rails x ") !=
          std::string::npos);
    for (double o : t.summary.oversubscription_per_tier) CHECK(o == doctest::Approx(1.0));
  }
}

TEST_CASE("explicit leaves may exceed what the NICs need; the spare leaves stay empty") {
  ClusterSpec spec = example_fabric();
  spec.nodes = 100;
  spec.fabric.leaves = 8;
  const Topology t = build_cluster(spec);
  CHECK(t.summary.switches_per_tier[1] == 8);
  CHECK(leaf_of(t, "n99.nic0") == "leaf3");
  CHECK(t.out_links(t.at("leaf3")).size() == 4 + 8);
  CHECK(t.out_links(t.at("leaf7")).size() == 8);
  CHECK(t.summary.oversubscription_per_tier[1] == doctest::Approx(1.0));
}

TEST_CASE("every invalid input throws a typed violation naming its field") {
  const auto expect = [](const ClusterSpec& spec, const std::string& field, const std::string& detail = "") {
    try {
      build_cluster(spec);
      FAIL("no sim::SpecError thrown for " << field);
    } catch (const fathom::sim::SpecError& e) {
      const fathom::sim::SpecViolation& v = e.violation();
      INFO(e.what());
      CHECK(v.field == field);
      CHECK(std::string(e.what()) == v.message());
      CHECK_FALSE(v.expected.empty());
      if (!detail.empty()) CHECK(v.message().find(detail) != std::string::npos);
    }
  };
  ClusterSpec s;

  s = example_fabric(), s.nodes = 0, expect(s, "nodes");
  s = example_fabric(), s.node.gpus = -1, expect(s, "node.gpus");
  s = example_fabric(), s.node.nics = -2, expect(s, "node.nics");
  s = example_fabric(), s.node.nics = 0, expect(s, "node.nics", "nothing to build");
  s = dgx_cluster(4), s.node.nics = 0, expect(s, "node.nics", "4 NVLink domains");
  s = dgx_cluster(4), s.node.nvlink_domain_nodes = 0, expect(s, "node.nvlink_domain_nodes");
  s = dgx_cluster(4), s.node.nvlink_domain_nodes = 3,
  expect(s, "node.nvlink_domain_nodes", "expected a divisor of nodes = 4");
  s = example_fabric(), s.node.nvlink_domain_nodes = 2,
  expect(s, "node.nvlink_domain_nodes", "expected 1 on a node without GPUs");
  s = dgx_cluster(4), s.node.nvswitches = -1, expect(s, "node.nvswitches");
  s = dgx_cluster(4), s.node.nvlink_bytes_per_s = 0, expect(s, "node.nvlink_bytes_per_s");
  s = dgx_cluster(4), s.node.nvlink_latency_ns = -1, expect(s, "node.nvlink_latency_ns");
  s = dgx_cluster(4), s.node.pcie_bytes_per_s = -64e9, expect(s, "node.pcie_bytes_per_s");
  s = dgx_cluster(4), s.node.pcie_latency_ns = -1, expect(s, "node.pcie_latency_ns");
  s = example_fabric(), s.node.nic_bytes_per_s = 0, expect(s, "node.nic_bytes_per_s");
  s = example_fabric(), s.nodes = 1 << 30, s.node.nics = 2, expect(s, "nodes", "vertices in all");

  s = example_fabric(), s.fabric.tiers = 4, expect(s, "fabric.tiers", "expected 2 or 3, found 4");
  s = example_fabric(), s.fabric.tiers = 1, expect(s, "fabric.tiers");
  s = dgx_cluster(64), s.fabric.kind = FabricKind::kRailOptimized, s.fabric.tiers = 3, s.fabric.radix = 12,
  s.fabric.hosts_per_leaf = 0, s.fabric.spines = 0, s.fabric.tier.push_back({50e9, 1000}),
  expect(s, "fabric.leaves_per_pod",
         "expected a multiple of the 8 rails (node.nics: every rail has leaves of its own "
         "in every pod), found 6 (radix / 2)");
  s = example_fabric(), s.fabric.tier.pop_back(),
  expect(s, "fabric.tier", "expected 2 link speeds for a 2-tier fabric (NIC-leaf, leaf-spine), found 1");
  s = example_fabric(), s.fabric.tiers = 3, s.fabric.leaves_per_pod = 4, s.fabric.cores = 8,
  expect(s, "fabric.tier", "expected 3 link speeds");
  s = example_fabric(), s.fabric.tier[1].link_bytes_per_s = 0,
  expect(s, "fabric.tier[1].link_bytes_per_s", "(leaf-spine links)");
  s = example_fabric(), s.fabric.tier[0].link_latency_ns = -3,
  expect(s, "fabric.tier[0].link_latency_ns", "(NIC-leaf links)");
  s = example_fabric(), s.fabric.radix = 63, expect(s, "fabric.radix", "expected an even count");
  s = example_fabric(), s.fabric.radix = -2, expect(s, "fabric.radix");
  s = example_fabric(), s.fabric.oversubscription = 0, expect(s, "fabric.oversubscription");
  s = example_fabric(), s.fabric.hosts_per_leaf = -1, expect(s, "fabric.hosts_per_leaf");
  s = example_fabric(), s.fabric.leaves = -1, expect(s, "fabric.leaves");
  s = example_fabric(), s.fabric.spines = -1, expect(s, "fabric.spines");
  s = example_fabric(), s.fabric.links_per_leaf_spine = -1, expect(s, "fabric.links_per_leaf_spine");
  s = example_fabric(), s.fabric.links_per_spine_core = 2,
  expect(s, "fabric.links_per_spine_core", "only a 3-tier fabric");
  s = example_fabric(), s.fabric.cores = 4, expect(s, "fabric.cores", "only a 3-tier fabric");
  s = example_fabric(), s.fabric.leaves_per_pod = 4, expect(s, "fabric.leaves_per_pod", "only a 3-tier fabric");

  s = example_fabric(), s.fabric.hosts_per_leaf = 0,
  expect(s, "fabric.hosts_per_leaf", "expected hosts_per_leaf, or a radix");
  s = example_fabric(), s.fabric.spines = 0, expect(s, "fabric.spines", "expected spines, or a radix");
  s = example_fabric(), s.fabric.leaves = 10,
  expect(s, "fabric.leaves",
         "expected at least 32 leaves (32 hosts_per_leaf each, for 1024 NIC ports (nodes 1024 x node.nics 1)), "
         "found 10 (320 NIC ports)");
  s = example_fabric(), s.fabric.radix = 64, s.fabric.hosts_per_leaf = 64,
  expect(s, "fabric.hosts_per_leaf", "expected fewer than the radix 64 (a leaf needs a port up), found 64");
  s = radix_fabric(96, 2, 64, 3.0), s.fabric.spines = 32,
  expect(s, "fabric.spines",
         "expected at most 16 spines (a radix-64 leaf with hosts_per_leaf 48 has 16 ports up, 1 "
         "links_per_leaf_spine to each spine), found 32");
  s = radix_fabric(96, 2, 64, 1.0), s.fabric.links_per_leaf_spine = 3,
  expect(s, "fabric.links_per_leaf_spine", "expected a divisor of the 32 up ports per leaf");
  s = radix_fabric(96, 2, 64, 0.001), expect(s, "fabric.oversubscription", "a NIC port down");
  s = radix_fabric(4096, 2, 64), expect(s, "fabric.radix",
                                        "expected at least 128 ports on every spine (128 leaves x 1 "
                                        "links_per_leaf_spine), found radix 64; use fabric.tiers: 3 or a larger radix");
  s = radix_fabric(200, 3, 8),
  expect(s, "fabric.radix",
         "expected at least 13 ports on every core (1 links_per_spine_core x 13 pods: a pod "
         "holds 4 leaves x 4 hosts_per_leaf = 16 of the 200 NIC ports");

  s = radix_fabric(64, 3, 8), s.fabric.links_per_spine_core = 3,
  expect(s, "fabric.links_per_spine_core", "expected a divisor of the 4 up ports per spine (radix 8 - 4 down)");
  s = radix_fabric(64, 3, 8), s.fabric.links_per_spine_core = 4,
  expect(s, "fabric.radix", "expected at least 16 ports on every core (4 links_per_spine_core x 4 pods");
  s = radix_fabric(128, 3, 0), s.fabric.hosts_per_leaf = 4, s.fabric.spines = 4, s.fabric.cores = 16,
  expect(s, "fabric.leaves_per_pod", "expected leaves_per_pod, or a radix");
  s = radix_fabric(128, 3, 0), s.fabric.hosts_per_leaf = 4, s.fabric.spines = 4, s.fabric.leaves_per_pod = 4,
  expect(s, "fabric.cores", "expected cores, or a radix");
  s = radix_fabric(128, 3, 8), s.fabric.cores = 10,
  expect(s, "fabric.cores", "expected a multiple of the 4 spines per pod");
  s = radix_fabric(128, 3, 8), s.fabric.cores = 32, expect(s, "fabric.cores", "8 up ports on every spine");
  s = radix_fabric(128, 3, 8), s.fabric.leaves_per_pod = 8,
  expect(s, "fabric.leaves_per_pod", "every spine needs a port up to the cores");
  s = radix_fabric(128, 3, 8), s.fabric.leaves = 30,
  expect(s, "fabric.leaves", "expected a multiple of leaves_per_pod 4 (pods are whole), found 30");
  s = radix_fabric(128, 3, 8), s.fabric.leaves = 28, expect(s, "fabric.leaves", "expected at least 32 leaves (8 pods");

  s = example_fabric(), s.fabric.spines = 1 << 30, expect(s, "fabric", "vertices and as many cables");
  s = example_fabric(), s.fabric.spines = 1 << 20, s.fabric.links_per_leaf_spine = 1 << 20,
  expect(s, "fabric", "cables, found");
  s = dgx_cluster(64), s.fabric.kind = FabricKind::kRailOptimized, s.fabric.leaves = 12,
  expect(s, "fabric.leaves",
         "expected a multiple of the 8 rails (node.nics: every rail has leaves of its own), found 12");
  s = dgx_cluster(64), s.fabric.kind = FabricKind::kRailOptimized, s.fabric.leaves = 8,
  expect(s, "fabric.leaves", "for one NIC of each of 64 nodes per rail), found 8 (1 per rail");
}

TEST_CASE("fabric count errors read alike for fat-tree and rail-optimised fabrics: key, expected, found") {
  // The same mistakes on both kinds: too few leaves, leaves that do not split, a radix too small for
  // two tiers or for the pods. Each message names the key, says what was expected and what was found.
  auto pattern = [](const ClusterSpec& spec, const std::string& key) {
    const std::string msg = error_of([&] { build_cluster(spec); });
    INFO(msg);
    CHECK(msg.rfind(key + ": expected ", 0) == 0);
    CHECK(msg.find(", found ") != std::string::npos);
  };
  for (const FabricKind kind : {FabricKind::kFatTree, FabricKind::kRailOptimized}) {
    CAPTURE(static_cast<int>(kind));
    ClusterSpec s = dgx_cluster(64);
    s.fabric.kind = kind;
    s.fabric.leaves = 1;
    pattern(s, "fabric.leaves");
    s = dgx_cluster(64), s.fabric.kind = kind, s.fabric.hosts_per_leaf = 0, s.fabric.spines = 0, s.fabric.radix = 16;
    pattern(s, "fabric.radix");  // 2 tiers of radix 16 hold 128 NIC ports, not 512
    s.fabric.tiers = 3, s.fabric.tier.push_back({50e9, 1000}), s.nodes = 1024;
    pattern(s, "fabric.radix");  // 3 tiers of radix 16 hold 16 pods
    s.nodes = 64, s.fabric.leaves = 12;
    pattern(s, "fabric.leaves");  // not whole pods of 8 leaves
  }
}

TEST_CASE("resized_cluster: the same system at any node count, counts re-derived from the radix") {
  using namespace fathom::topo;
  ClusterSpec base;  // 8 GPUs and 8 NICs per node, no radix, explicit counts that fit one node
  base.nodes = 1;
  base.fabric.hosts_per_leaf = 8;
  base.fabric.leaves = 1;
  base.fabric.spines = 1;
  base.fabric.tier = {{50e9, 1000}, {50e9, 1000}};
  base.fabric.routing = Routing::kDestination;

  const ClusterSpec four = resized_cluster(base, 4);
  CHECK(four.nodes == 4);
  CHECK(four.fabric.radix == kDefaultResizeRadix);
  CHECK(four.fabric.tiers == 2);
  CHECK(four.fabric.routing == Routing::kDestination);
  const FabricLayout l4 = layout_fabric(four);
  CHECK(l4.hosts_per_leaf == 32);  // radix 64, no oversubscription: half the ports down
  CHECK(l4.leaves == 1);
  CHECK(build_cluster(four).vertices().size() > build_cluster(base).vertices().size());

  // 300 nodes x 8 NICs = 2400 ports, more than two tiers of radix 64 hold (32 x 64 = 2048).
  const ClusterSpec big = resized_cluster(base, 300);
  CHECK(big.fabric.tiers == 3);
  CHECK(big.fabric.tier.size() == 3);
  CHECK(layout_fabric(big).nic_ports == 2400);
  CHECK_THROWS_WITH(resized_cluster(base, 0), doctest::Contains("nodes"));

  // NVL72-like trays (4 GPUs, 18 trays per NVLink domain): whole domains only, so 1 or 18 trays
  // give one domain and 19 give two; the cluster builds.
  ClusterSpec tray = base;
  tray.node.gpus = 4;
  tray.node.nics = 4;
  tray.node.nvlink_domain_nodes = 18;
  tray.node.nvswitches = 18;
  CHECK(resized_cluster(tray, 1).nodes == 18);
  CHECK(resized_cluster(tray, 18).nodes == 18);
  CHECK(resized_cluster(tray, 19).nodes == 36);
  CHECK(build_cluster(resized_cluster(tray, 2)).summary.switches_per_tier[0] == 18);
}

TEST_CASE("one wire, one rate: a 100 Gb/s NIC under a 400 Gb/s leaf link gives 100 Gb/s cables and a warning") {
  ClusterSpec spec = dgx_cluster(4);
  spec.fabric.hosts_per_leaf = 16;  // 2 leaves, so the uplinks carry traffic
  spec.fabric.spines = 16;
  spec.node.nic_bytes_per_s = 12.5e9;
  const Topology t = build_cluster(spec);
  for (const Link& l : t.links()) {
    if (l.cls == LinkClass::kHostLeaf) CHECK(l.bytes_per_s == 12.5e9);
  }
  REQUIRE(t.summary.warnings.size() == 1);
  const TopologyWarning& w = t.summary.warnings.front();
  CHECK(w.kind == TopologyWarning::Kind::kNicLinkMismatch);
  CHECK(to_string(w.kind) == "nic-link-mismatch");
  CHECK(w.tier == 1);
  CHECK(w.ratio == doctest::Approx(0.25));
  CHECK(w.message ==
        "NIC line rate 100 Gb/s and NIC-leaf link 400 Gb/s differ: the NIC-leaf cables run at 100 Gb/s, the "
        "slower end's rate");
  CHECK(to_string(t.summary).find("  warning: NIC line rate 100 Gb/s") != std::string::npos);
  // The other way round too: an 800 Gb/s NIC on a 400 Gb/s port runs at 400.
  spec.node.nic_bytes_per_s = 100e9;
  const Topology fast = build_cluster(spec);
  for (const Link& l : fast.links()) {
    if (l.cls == LinkClass::kHostLeaf) CHECK(l.bytes_per_s == 50e9);
  }
  REQUIRE(fast.summary.warnings.size() == 1);
  CHECK(fast.summary.warnings.front().ratio == doctest::Approx(2.0));
  // Matching rates: no warning.
  spec.node.nic_bytes_per_s = 50e9;
  CHECK(build_cluster(spec).summary.warnings.empty());
  CHECK(build_cluster(example_fabric()).summary.warnings.empty());
}

TEST_CASE("an oversubscribed tier that traffic leaves upwards is a warning with its ratio") {
  // Radix 64 at 3:1: 48 NICs down, 16 spines up per leaf.
  const Topology t = build_cluster(radix_fabric(96, 2, 64, 3.0));
  REQUIRE(t.summary.warnings.size() == 1);
  const TopologyWarning& w = t.summary.warnings.front();
  CHECK(w.kind == TopologyWarning::Kind::kOversubscribed);
  CHECK(to_string(w.kind) == "oversubscribed");
  CHECK(w.tier == 1);
  CHECK(w.ratio == doctest::Approx(3.0));
  CHECK(w.message == "leaves are oversubscribed 3:1 (leaf0: 19.2 Tb/s down to its NICs, 6.4 Tb/s up to its spines)");

  // The spines of a 3-tier fabric: k = 8 with one core per spine instead of four.
  ClusterSpec cores = radix_fabric(128, 3, 8);
  cores.fabric.cores = 4;
  const Topology c = build_cluster(cores);
  REQUIRE(c.summary.warnings.size() == 1);
  CHECK(c.summary.warnings.front().tier == 2);
  CHECK(c.summary.warnings.front().ratio == doctest::Approx(4.0));
  CHECK(c.summary.warnings.front().message.rfind("spines are oversubscribed 4:1 (spine0.0: ", 0) == 0);

  // Two DGX nodes on one leaf with 4 uplinks: 4:1 on paper, but nothing leaves the leaf.
  const Topology lone = build_cluster(dgx_cluster(2));
  CHECK(lone.summary.oversubscription_per_tier[1] == doctest::Approx(4.0));
  CHECK(lone.summary.warnings.empty());
  // One pod of a 3-tier fabric: its spines' core links carry nothing either.
  ClusterSpec pod = cores;
  pod.nodes = 16;
  const Topology one_pod = build_cluster(pod);
  CHECK(one_pod.summary.oversubscription_per_tier[2] == doctest::Approx(4.0));
  CHECK(one_pod.summary.warnings.empty());
}
