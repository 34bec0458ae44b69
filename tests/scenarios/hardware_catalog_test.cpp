// The built-in hardware catalog: every entry loads with its SI values, a scenario names an
// entry or overrides one with `base:`, and an unknown name is rejected with a hint.
#include "scenarios/hardware_catalog.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"

using fathom::scenario::catalog_node_names;
using fathom::scenario::catalog_nodes;
using fathom::scenario::find_catalog_node;
using fathom::scenario::load_scenario;
using fathom::topo::NodeSpec;

namespace {

// A one-node scenario whose `cluster.node` is `node` (YAML flow text).
std::string scenario_with_node(const std::string& node) {
  return "cluster:\n  nodes: 1\n  node: " + node +
         "\n  fabric:\n    hosts_per_leaf: 8\n    leaves: 1\n    spines: 1\n    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n      - {bandwidth: 400Gbps, latency: 1us}\n"
         "workload:\n  kind: nccl-tests\n";
}

NodeSpec load_node(const std::string& node) {
  return load_scenario(fathom::test::write_scratch_file("catalog.yaml", scenario_with_node(node))).cluster.node;
}

// A catalog node in a cluster of one whole NVLink domain (18 nodes for gb200-nvl72), on a
// radix-64 fat-tree.
NodeSpec load_domain(const std::string& name) {
  const int nodes = find_catalog_node(name)->node.nvlink_domain_nodes;
  if (nodes == 1) return load_node(name);
  const std::string text = "cluster:\n  nodes: " + std::to_string(nodes) + "\n  node: " + name +
                           "\n  fabric: {kind: fat-tree, radix: 64, links: [{bandwidth: 400Gbps, latency: 1us}, "
                           "{bandwidth: 400Gbps, latency: 1us}]}\nworkload:\n  kind: nccl-tests\n";
  return load_scenario(fathom::test::write_scratch_file("catalog-domain.yaml", text)).cluster.node;
}

void check_same(const NodeSpec& a, const NodeSpec& b) {
  CHECK(a.gpus == b.gpus);
  CHECK(a.nics == b.nics);
  CHECK(a.nvlink_bytes_per_s == b.nvlink_bytes_per_s);
  CHECK(a.nvlink_latency_ns == b.nvlink_latency_ns);
  CHECK(a.nvswitches == b.nvswitches);
  CHECK(a.nvls == b.nvls);
  CHECK(a.nvlink_domain_nodes == b.nvlink_domain_nodes);
  CHECK(a.pcie_bytes_per_s == b.pcie_bytes_per_s);
  CHECK(a.pcie_latency_ns == b.pcie_latency_ns);
  CHECK(a.nic_bytes_per_s == b.nic_bytes_per_s);
}

}  // namespace

TEST_CASE("the catalog parses strictly and is the file in the source tree") {
  // catalog_nodes() rejects any key but the node keys and `source`, so parsing is the check.
  REQUIRE(catalog_node_names() == std::vector<std::string>{"dgx-a100", "dgx-a100-40gb", "dgx-h100", "hgx-h200",
                                                           "generic-8gpu-roce", "mi300x-platform", "gb200-nvl72"});
  for (const auto& n : catalog_nodes()) {
    CAPTURE(n.name);
    CHECK_FALSE(n.source.empty());
  }
  std::ifstream in(std::string(FATHOM_SOURCE_DIR) + "/scenarios/hardware/nodes.yaml");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == fathom::scenario::hardware_catalog_text());
}

TEST_CASE("a catalog with an unknown key is rejected") {
  const auto doc = fathom::scenario::Document::parse("x:\n  source: s\n  nvlink: 1GB/s\n", "cat.yaml");
  auto root = doc.root();
  auto x = root.child("x");
  CHECK_FALSE(x.required<std::string>("source").empty());
  fathom::scenario::read_node_fields(x, NodeSpec{});
  CHECK_THROWS_AS(x.finish(), fathom::scenario::ScenarioError);
}

TEST_CASE("each catalog entry loads with its SI values") {
  const NodeSpec a100 = load_node("dgx-a100");
  CHECK(a100.gpus == 8);
  CHECK(a100.nics == 8);
  CHECK(a100.nvlink_bytes_per_s == doctest::Approx(300e9));
  CHECK(a100.nic_bytes_per_s == doctest::Approx(25e9));
  CHECK(a100.nvswitches == 6);
  CHECK_FALSE(a100.nvls);
  CHECK(a100.pcie_bytes_per_s == doctest::Approx(32e9));

  const NodeSpec h100 = load_node("dgx-h100");
  CHECK(h100.gpus == 8);
  CHECK(h100.nics == 8);
  CHECK(h100.nvlink_bytes_per_s == doctest::Approx(450e9));
  CHECK(h100.nic_bytes_per_s == doctest::Approx(50e9));
  CHECK(h100.nvswitches == 4);
  CHECK(h100.nvls);
  CHECK(h100.pcie_bytes_per_s == doctest::Approx(64e9));
  CHECK(h100.nvlink_latency_ns == 500);
  CHECK(h100.pcie_latency_ns == 200);

  check_same(load_node("hgx-h200"), h100);  // same fabric as the H100

  const NodeSpec roce = load_node("generic-8gpu-roce");
  CHECK(roce.gpus == 8);
  CHECK(roce.nics == 2);
  CHECK(roce.nvlink_bytes_per_s == doctest::Approx(450e9));
  CHECK(roce.nic_bytes_per_s == doctest::Approx(12.5e9));
  CHECK_FALSE(roce.nvls);

  for (const auto& name : catalog_node_names()) {
    CAPTURE(name);
    check_same(load_domain(name), find_catalog_node(name)->node);
  }
}

TEST_CASE("mi300x-platform: a switchless Infinity Fabric mesh modelled as one plane, no in-switch reduction") {
  const NodeSpec n = load_node("mi300x-platform");
  CHECK(n.gpus == 8);
  CHECK(n.nvswitches == 0);
  CHECK_FALSE(n.nvls);
  CHECK(n.nvlink_bytes_per_s == doctest::Approx(448e9));  // 7 links x 64 GB/s per direction
  CHECK(n.nics == 8);
  CHECK(n.nic_bytes_per_s == doctest::Approx(50e9));
  CHECK(find_catalog_node("mi300x-platform")->accelerator == "mi300x");
}

TEST_CASE("gb200-nvl72: a tray of 4 GPUs in a 72-GPU NVLink domain with in-switch reduction") {
  const NodeSpec n = load_domain("gb200-nvl72");
  CHECK(n.gpus == 4);
  CHECK(n.nvlink_domain_nodes == 18);
  CHECK(n.nvls);
  CHECK(n.nvswitches == 18);
  CHECK(n.nvlink_bytes_per_s == doctest::Approx(900e9));  // NVLink5, 18 x 50 GB/s per direction
  CHECK(n.nics == 4);
  CHECK(find_catalog_node("gb200-nvl72")->accelerator == "gb200");
  // One tray alone is not a whole domain: the cluster must hold all 18.
  CHECK(fathom::test::load_error(scenario_with_node("gb200-nvl72")).key_path() == "cluster.node.nvlink_domain_nodes");
}

TEST_CASE("base: takes a catalog entry and overrides the fields given") {
  const NodeSpec n = load_node("{base: dgx-h100, nics: 4, nvls: false}");
  CHECK(n.nics == 4);
  CHECK_FALSE(n.nvls);
  CHECK(n.nvlink_bytes_per_s == doctest::Approx(450e9));
  CHECK(n.nic_bytes_per_s == doctest::Approx(50e9));
  CHECK(n.nvswitches == 4);

  // Without base:, a mapping starts from NodeSpec's defaults as before.
  const NodeSpec plain = load_node("{nics: 2}");
  NodeSpec expected;
  expected.nics = 2;
  check_same(plain, expected);
}

TEST_CASE("an unknown catalog name is rejected at its key with the names and a hint") {
  const auto e = fathom::test::load_error(scenario_with_node("dgx-h10"));
  CHECK(e.key_path() == "cluster.node");
  CHECK(e.line() == 3);
  CHECK(std::string(e.what()).find("dgx-a100, dgx-a100-40gb, dgx-h100, hgx-h200, generic-8gpu-roce") !=
        std::string::npos);
  CHECK(e.hint() == "did you mean \"dgx-h100\"?");

  const auto b = fathom::test::load_error(scenario_with_node("{base: hgx-h20, nics: 4}"));
  CHECK(b.key_path() == "cluster.node.base");
  CHECK(b.hint() == "did you mean \"hgx-h200\"?");

  const auto k = fathom::test::load_error(scenario_with_node("{base: dgx-h100, source: x}"));
  CHECK(k.key_path() == "cluster.node.source");
}
