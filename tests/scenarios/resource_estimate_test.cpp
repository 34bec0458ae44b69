// The memory estimate: its counts against what fathom builds (the topology's links, the flows
// a pattern makes), and the refusal at the key to shrink.
#include "scenarios/resource_estimate.hpp"

#include <doctest/doctest.h>

#include <string>

#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"
#include "topologies/cluster.hpp"

using fathom::scenario::estimate_resources;
using fathom::scenario::load_scenario;
using fathom::scenario::ResourceEstimate;
using fathom::scenario::ScenarioError;

namespace {

double count_of(const ResourceEstimate& e, const std::string& key) {
  double n = 0;
  for (const auto& u : e.uses) n += u.key == key ? u.count : 0;
  return n;
}

}  // namespace

TEST_CASE("memory estimate: the topology's directed links, counted from the spec, equal the links built") {
  for (const char* example : {"scenarios/examples/dgx-h100-node.yaml", "scenarios/examples/fat-tree-a2a-64.yaml",
                              "scenarios/examples/pilot-16-nodes.yaml", "scenarios/examples/production-2048-nodes.yaml",
                              "scenarios/examples/llama3-405b-16k.yaml"}) {
    CAPTURE(example);
    const auto s = load_scenario(std::string(FATHOM_SOURCE_DIR) + "/" + example);
    const ResourceEstimate e = estimate_resources(s);
    const auto built = fathom::topo::build_cluster(s.cluster).links().size();
    CHECK(count_of(e, "cluster.nodes") + count_of(e, "cluster.fabric") == static_cast<double>(built));
  }
}

TEST_CASE("memory estimate: the same on 3-tier fabrics, plain and rail-optimised") {
  const std::string pilot = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/production-2048-nodes.yaml";
  for (const char* kind : {"fat-tree", "rail-optimised"}) {
    CAPTURE(kind);
    const auto s =
        load_scenario(pilot, {std::string("cluster.fabric={kind: ") + kind +
                              ", tiers: 3, radix: 64, links: [{bandwidth: 400Gbps, latency: 1us}, {bandwidth: "
                              "400Gbps, latency: 1us}, {bandwidth: 400Gbps, latency: 1us}]}"});
    const auto built = fathom::topo::build_cluster(s.cluster).links().size();
    const ResourceEstimate e = estimate_resources(s);
    CHECK(count_of(e, "cluster.nodes") + count_of(e, "cluster.fabric") == static_cast<double>(built));
  }
}

TEST_CASE("memory estimate: flows as the traffic patterns make them; passes as the pipeline runs them") {
  const auto a2a = load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/fat-tree-a2a-64.yaml");
  CHECK(count_of(estimate_resources(a2a), "workload.endpoints") == 64.0 * 63);  // every ordered pair
  const auto perm =
      load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/fat-tree-1024-permutation.yaml");
  CHECK(count_of(estimate_resources(perm), "workload.endpoints") == 1024);
  // within: node, the pattern node by node: estimated as many flows as are made, every flow
  // between two GPUs of one node, ids 0, 1, 2 ... in node order.
  const auto moe =
      load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/moe-all-to-all-nvlink-2048-nodes.yaml",
                    {"cluster.nodes=16", "cluster.fabric.leaves=2", "cluster.fabric.spines=2"});
  const auto topology = fathom::topo::build_cluster(moe.cluster);
  const auto flows = fathom::scenario::traffic_flows(moe, topology);
  CHECK(flows.size() == 16 * 8 * 7);
  CHECK(count_of(estimate_resources(moe), "workload.endpoints") == static_cast<double>(flows.size()));
  for (std::size_t i = 0; i < flows.size(); ++i) {
    CHECK(flows[i].id == i);
    CHECK(topology.vertex(flows[i].src).node == static_cast<int>(i / 56));
    CHECK(topology.vertex(flows[i].dst).node == static_cast<int>(i / 56));
  }
  CHECK_THROWS_AS(
      load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/moe-all-to-all-nvlink-2048-nodes.yaml",
                    {"workload.within=rack"}),
      ScenarioError);
  // The pilot: global batch 128 over dp 4 with micro-batch 1 is 32 micro-batches, on 4 stages,
  // each a forward and a backward.
  const auto pilot = load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/pilot-16-nodes.yaml");
  CHECK(count_of(estimate_resources(pilot), "workload.global_batch") == 32.0 * 4 * 2);
}

TEST_CASE("memory estimate: a scenario over the limit is refused at the key to shrink, with the figures") {
  const std::string file = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/pilot-16-nodes.yaml";
  const auto big = load_scenario(file, {"workload.global_batch=1000000000"});
  const ResourceEstimate e = estimate_resources(big);
  CHECK(e.largest()->key == "workload.global_batch");
  CHECK_NOTHROW(fathom::scenario::require_within_memory(big, e, 1e15));
  try {
    fathom::scenario::require_within_memory(big, e, fathom::scenario::kDefaultMemoryLimit);
    FAIL("not refused");
  } catch (const ScenarioError& error) {
    CHECK(error.key_path() == "workload.global_batch");
    CHECK(error.file() == "--set workload.global_batch=1000000000");
    CHECK(error.expected() == "a run within fathom's memory limit of 16 GiB (--max-memory)");
    CHECK(error.found().find("2e+09 pipeline passes") != std::string::npos);
    CHECK(error.hint().find("raise --max-memory") != std::string::npos);
  }
  // The examples are far below the default limit.
  CHECK(estimate_resources(load_scenario(file)).bytes() < 1e-3 * fathom::scenario::kDefaultMemoryLimit);
}
