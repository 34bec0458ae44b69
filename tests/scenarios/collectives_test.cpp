// The nccl-tests workload and the optional `collectives:` section: defaults from public
// statements, units and strict keys like every other section, and the DGX H100 example.
#include <doctest/doctest.h>

#include <string>

#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"

using fathom::scenario::load_scenario;
using fathom::scenario::ScenarioError;
using fathom::scenario::WorkloadKind;
using fathom::test::write_scratch_file;

namespace {

const std::string kBase = R"(cluster:
  nodes: 1
  node: {gpus: 8, nics: 8, nvls: true}
  fabric:
    tiers: 2
    hosts_per_leaf: 8
    spines: 1
    links:
      - {bandwidth: 400Gbps, latency: 1us}
      - {bandwidth: 400Gbps, latency: 1us}
workload:
  kind: nccl-tests
)";

}  // namespace

TEST_CASE("a nccl-tests workload needs no keys and takes nccl-tests' defaults") {
  const auto s = load_scenario(write_scratch_file("scenario.yaml", kBase));
  CHECK(s.workload == WorkloadKind::kNcclTests);
  CHECK(s.nccl_tests.op == "all_reduce");
  CHECK(s.nccl_tests.min_bytes == 8);
  CHECK(s.nccl_tests.max_bytes == 8LL << 30);
  CHECK(s.nccl_tests.step_factor == 2);
  // No collectives: section: the documented defaults.
  CHECK(s.collectives.alpha_ns == 5'000);
  CHECK(s.collectives.launch_ns == 10'000);
  CHECK(s.collectives.slice_bytes == 512 * 1024);
  CHECK(s.collectives.nvls_chunk_bytes == 128 * 1024);
  CHECK(s.collectives.nvls_channels == 16);
  CHECK(s.collectives.max_slices == 64);
  CHECK(s.collectives.flows_per_connection == 2);  // 2 NCCL channels per NIC pair x 1 queue pair
  CHECK(s.cluster.fabric.routing == fathom::topo::Routing::kEcmpHash);
  CHECK(s.collectives.efficiency.ring == doctest::Approx(370.0 / 450));
  CHECK(s.collectives.efficiency.nvls == doctest::Approx(480.0 / 787.5));
}

TEST_CASE("the nccl-tests workload and collectives: keys are read with units") {
  const auto s = load_scenario(write_scratch_file("scenario.yaml", kBase + R"(  op: all_gather
  min_bytes: 1MiB
  max_bytes: 64MiB
  step_factor: 4
collectives:
  alpha: 2us
  launch: 7.5us
  slice: 1MiB
  nvls_chunk: 64KiB
  nvls_channels: 32
  max_slices: 16
  flows_per_connection: 16
  efficiency: {ring: 0.9, tree: 80%, nvls: 0.7, nic: 0.95}
)"));
  CHECK(s.collectives.flows_per_connection == 16);
  CHECK(s.nccl_tests.op == "all_gather");
  CHECK(s.nccl_tests.min_bytes == 1 << 20);
  CHECK(s.nccl_tests.max_bytes == 64 << 20);
  CHECK(s.nccl_tests.step_factor == 4);
  CHECK(s.collectives.alpha_ns == 2'000);
  CHECK(s.collectives.launch_ns == 7'500);
  CHECK(s.collectives.slice_bytes == 1 << 20);
  CHECK(s.collectives.nvls_chunk_bytes == 64 * 1024);
  CHECK(s.collectives.nvls_channels == 32);
  CHECK(s.collectives.max_slices == 16);
  CHECK(s.collectives.efficiency.ring == 0.9);
  CHECK(s.collectives.efficiency.tree == doctest::Approx(0.8));
  CHECK(s.collectives.efficiency.nvls == 0.7);
  CHECK(s.collectives.efficiency.nic == 0.95);
  // --set reaches the new keys like any other.
  const auto o = load_scenario(write_scratch_file("scenario.yaml", kBase),
                               {"collectives.max_slices=2", "collectives.efficiency.nvls=0.5",
                                "collectives.flows_per_connection=4", "cluster.fabric.routing=adaptive"});
  CHECK(o.collectives.max_slices == 2);
  CHECK(o.collectives.flows_per_connection == 4);
  CHECK(o.cluster.fabric.routing == fathom::topo::Routing::kAdaptive);
  CHECK(o.collectives.efficiency.nvls == 0.5);
}

TEST_CASE("mistakes in collectives: and the nccl-tests workload are reported at their key") {
  SUBCASE("unknown key with a hint") {
    const auto e = fathom::test::load_error(kBase + "collectives: {slices: 4}\n");
    CHECK(e.key_path() == "collectives.slices");
    CHECK(e.hint().find("slice") != std::string::npos);
  }
  SUBCASE("an efficiency without a unit of time") {
    const auto e = fathom::test::load_error(kBase + "collectives: {alpha: 5}\n");
    CHECK(e.key_path() == "collectives.alpha");
  }
  SUBCASE("an efficiency above 1") {
    const auto e = fathom::test::load_error(kBase + "collectives:\n  efficiency: {ring: 1.2}\n");
    CHECK(e.key_path() == "collectives.efficiency.ring");
    CHECK(e.line() == 14);
  }
  SUBCASE("a zero efficiency") {
    const auto e = fathom::test::load_error(kBase + "collectives:\n  efficiency: {nvls: 0}\n");
    CHECK(e.key_path() == "collectives.efficiency.nvls");
  }
  SUBCASE("an unknown algorithm under efficiency") {
    const auto e = fathom::test::load_error(kBase + "collectives:\n  efficiency: {rnig: 0.8}\n");
    CHECK(e.key_path() == "collectives.efficiency.rnig");
    CHECK(e.hint().find("ring") != std::string::npos);
  }
  SUBCASE("zero max_slices") {
    CHECK(fathom::test::load_error(kBase + "collectives: {max_slices: 0}\n").key_path() == "collectives.max_slices");
  }
  SUBCASE("flows per connection: zero, or more than NCCL can open") {
    CHECK(fathom::test::load_error(kBase + "collectives: {flows_per_connection: 0}\n").key_path() ==
          "collectives.flows_per_connection");
    const auto e = fathom::test::load_error(kBase + "collectives: {flows_per_connection: 1000}\n");
    CHECK(e.key_path() == "collectives.flows_per_connection");
    CHECK(std::string(e.what()).find("at most 256") != std::string::npos);
  }
  SUBCASE("an unknown routing mode") {
    std::string text = kBase;
    text.replace(text.find("    tiers: 2"), 0, "    routing: adaptve\n");
    const auto e = fathom::test::load_error(text);
    CHECK(e.key_path() == "cluster.fabric.routing");
  }
  SUBCASE("an NVLS chunk of zero bytes") {
    CHECK(fathom::test::load_error(kBase + "collectives: {nvls_chunk: 0B}\n").key_path() == "collectives.nvls_chunk");
  }
  SUBCASE("an unknown op") { CHECK(fathom::test::load_error(kBase + "  op: allreduce\n").key_path() == "workload.op"); }
  SUBCASE("sizes the wrong way round") {
    CHECK(fathom::test::load_error(kBase + "  min_bytes: 1MiB\n  max_bytes: 1KiB\n").key_path() ==
          "workload.max_bytes");
  }
  SUBCASE("a traffic key in a nccl-tests workload") {
    CHECK(fathom::test::load_error(kBase + "  pattern: ring\n").key_path() == "workload.pattern");
  }
}

TEST_CASE("the DGX H100 example loads as documented") {
  const auto s = load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/dgx-h100-node.yaml");
  CHECK(s.workload == WorkloadKind::kNcclTests);
  CHECK(s.cluster.nodes == 1);
  CHECK(s.cluster.node.gpus == 8);
  CHECK(s.cluster.node.nics == 8);
  CHECK(s.cluster.node.nvls);
  CHECK(s.cluster.node.nvlink_bytes_per_s == 450e9);
  CHECK(s.cluster.node.nic_bytes_per_s == 50e9);
  CHECK(s.cluster.fabric.tier.size() == 2);
}

TEST_CASE("collectives: protocol keys, and NCCL_PROTO as `protocol`") {
  auto s = load_scenario(write_scratch_file(
      "protocols.yaml", kBase + "collectives: {ll_max: 8MiB, ll128_max: 128MiB, ll_alpha: 900ns, ll128_alpha: 3us, "
                                "ll_bandwidth: 0.45, ll128_bandwidth: 90%, protocol: LL128}\n"));
  CHECK(s.collectives.ll_max_bytes == 8.0 * (1 << 20));
  CHECK(s.collectives.ll128_max_bytes == 128.0 * (1 << 20));
  CHECK(s.collectives.ll.alpha_ns == 900);
  CHECK(s.collectives.ll128.alpha_ns == 3000);
  CHECK(s.collectives.ll.bandwidth_fraction == doctest::Approx(0.45));
  CHECK(s.collectives.ll128.bandwidth_fraction == doctest::Approx(0.9));
  REQUIRE(s.collectives.protocol);
  CHECK(*s.collectives.protocol == fathom::coll::Protocol::kLL128);
  CHECK(s.collectives.tuner == fathom::coll::Tuner::kThresholds);  // thresholds given, no `tuner`
  // The defaults: NCCL's cost model chooses; the thresholds, where told to, run every size Simple.
  s = load_scenario(write_scratch_file("no-protocols.yaml", kBase));
  CHECK(s.collectives.tuner == fathom::coll::Tuner::kNccl);
  CHECK(s.collectives.ll_max_bytes == 0);
  CHECK(s.collectives.ll128_max_bytes == 0);
  CHECK_FALSE(s.collectives.protocol);
  CHECK(s.collectives.protocol_for(1e3) == fathom::coll::Protocol::kSimple);
  const auto e = fathom::test::load_error(kBase + "collectives: {protocol: LL64}\n");
  CHECK(e.key_path() == "collectives.protocol");
}

TEST_CASE("collectives: the tree's protocol bounds follow the ring's unless given; the algorithm thresholds") {
  auto s =
      load_scenario(write_scratch_file("tree-follows.yaml", kBase + "collectives: {ll_max: 8MiB, ll128_max: 64MiB}\n"));
  CHECK(s.collectives.tree_ll_max_bytes == 8.0 * (1 << 20));
  CHECK(s.collectives.tree_ll128_max_bytes == 64.0 * (1 << 20));
  CHECK(s.collectives.nvls_min_bytes == fathom::coll::kNvlsMinBytes);
  CHECK(s.collectives.tree_max_bytes == fathom::coll::kTreeMaxBytes);
  s = load_scenario(write_scratch_file(
      "tree-own.yaml", kBase + "collectives: {ll_max: 8MiB, ll128_max: 64MiB, tree_ll_max: 0B, tree_ll128_max: 2MiB, "
                               "nvls_min: 1MiB, tree_max: 16MiB}\n"));
  CHECK(s.collectives.ll_max_bytes == 8.0 * (1 << 20));
  CHECK(s.collectives.tree_ll_max_bytes == 0);
  CHECK(s.collectives.tree_ll128_max_bytes == 2.0 * (1 << 20));
  CHECK(s.collectives.protocol_for(1e6, /*tree=*/true) == fathom::coll::Protocol::kLL128);
  CHECK(s.collectives.protocol_for(1e6) == fathom::coll::Protocol::kLL);
  CHECK(s.collectives.nvls_min_bytes == 1.0 * (1 << 20));
  CHECK(s.collectives.tree_max_bytes == 16.0 * (1 << 20));
  // `tuner` given wins over the rule; a word it does not know is an error at its key.
  s = load_scenario(write_scratch_file("tuner-nccl.yaml", kBase + "collectives: {tree_max: 16MiB, tuner: nccl}\n"));
  CHECK(s.collectives.tuner == fathom::coll::Tuner::kNccl);
  s = load_scenario(write_scratch_file("tuner-thresholds.yaml", kBase + "collectives: {tuner: thresholds}\n"));
  CHECK(s.collectives.tuner == fathom::coll::Tuner::kThresholds);
  CHECK(fathom::test::load_error(kBase + "collectives: {tuner: argmin}\n").key_path() == "collectives.tuner");
  CHECK(fathom::test::load_error(kBase + "collectives: {tree_max: lots}\n").key_path() == "collectives.tree_max");
  CHECK(fathom::test::load_error(kBase + "collectives: {nvls_min: -1MiB}\n").key_path() == "collectives.nvls_min");
}
