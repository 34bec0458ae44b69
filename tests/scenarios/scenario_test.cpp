// Loading whole scenarios: the shipped examples, and every kind of mistake a user makes,
// each reported at its file:line:column with the key, what was expected and what was found.
#include "scenarios/scenario.hpp"

#include <doctest/doctest.h>

#include <string>

#include "tests/scenarios/scenario_files.hpp"
#include "topologies/cluster.hpp"

using fathom::scenario::load_scenario;
using fathom::scenario::ScenarioError;

namespace {

const std::string kExamples = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/";

// A valid fabric scenario; tests replace one line to break it.
const std::string kValid = R"(seed: 3
cluster:
  nodes: 64
  node:
    gpus: 0
    nics: 1
    nic_bandwidth: 100Gbps
  fabric:
    kind: fat-tree
    tiers: 2
    hosts_per_leaf: 16
    spines: 4
    links:
      - {bandwidth: 100Gbps, latency: 1us}
      - {bandwidth: 400Gbps, latency: 1us}
workload:
  kind: traffic
  pattern: permutation
  bytes: 1MB
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

}  // namespace

TEST_CASE("the example fabric scenarios load as documented") {
  const auto perm = load_scenario(kExamples + "fat-tree-1024-permutation.yaml");
  CHECK(perm.cluster.nodes == 1024);
  CHECK(perm.cluster.node.gpus == 0);
  CHECK(perm.cluster.node.nic_bytes_per_s == 12.5e9);
  CHECK(perm.cluster.fabric.tier.size() == 2);
  CHECK(perm.cluster.fabric.tier[1].link_bytes_per_s == 50e9);
  CHECK(perm.cluster.fabric.tier[0].link_latency_ns == 1000);
  CHECK(perm.traffic.generated.bytes_per_flow == 1e8);
  const auto topology = fathom::topo::build_cluster(perm.cluster);
  const auto flows = fathom::scenario::traffic_flows(perm, topology);
  REQUIRE(flows.size() == 1024);
  for (const auto& f : flows) CHECK(f.src != f.dst);

  const auto a2a = load_scenario(kExamples + "fat-tree-a2a-64.yaml");
  const auto a2a_flows = fathom::scenario::traffic_flows(a2a, fathom::topo::build_cluster(a2a.cluster));
  REQUIRE(a2a_flows.size() == 4032);
  for (const auto& f : a2a_flows) {
    CHECK(f.bytes == 1e7);
    CHECK(f.start < fathom::sim::SimTime::from_ns(10'000'000));
  }
}

TEST_CASE("--set overrides any key and is checked like the file") {
  const std::string path = fathom::test::write_scratch_file("valid.yaml", kValid);
  const auto s = load_scenario(path, {"cluster.nodes=32", "workload.bytes=2MB"});
  CHECK(s.cluster.nodes == 32);
  CHECK(s.traffic.generated.bytes_per_flow == 2e6);
  CHECK_THROWS_WITH_AS(load_scenario(path, {"cluster.nodes=-1"}), doctest::Contains("cluster.nodes"), ScenarioError);
}

TEST_CASE("bad scenarios name the place, the key, what was expected and what was found") {
  SUBCASE("syntax error") {
    const auto e = fathom::test::load_error(replaced(kValid, "  nodes: 64", "  nodes: [64"));
    CHECK(e.line() > 0);
    CHECK(std::string(e.what()).find("bad.yaml:") != std::string::npos);
  }
  SUBCASE("unknown key, with a hint") {
    const auto e = fathom::test::load_error(replaced(kValid, "hosts_per_leaf: 16", "hosts_per_lef: 16"));
    CHECK(e.line() == 11);
    CHECK(e.column() == 5);
    CHECK(e.key_path() == "cluster.fabric.hosts_per_lef");
    CHECK(e.hint().find("hosts_per_leaf") != std::string::npos);
  }
  SUBCASE("wrong unit") {
    const auto e = fathom::test::load_error(replaced(kValid, "nic_bandwidth: 100Gbps", "nic_bandwidth: 100GHz"));
    CHECK(e.line() == 7);
    CHECK(e.key_path() == "cluster.node.nic_bandwidth");
    CHECK(e.found() == "\"100GHz\"");
  }
  SUBCASE("negative count") {
    const auto e = fathom::test::load_error(replaced(kValid, "nodes: 64", "nodes: -3"));
    CHECK(e.line() == 3);
    CHECK(e.key_path() == "cluster.nodes");
  }
  SUBCASE("a fabric whose counts do not fit") {
    // 64 NICs on 16-port leaves need 4 leaves; 3 are given.
    const auto e = fathom::test::load_error(replaced(kValid, "    spines: 4\n", "    spines: 4\n    leaves: 3\n"));
    CHECK(e.key_path().rfind("cluster.fabric", 0) == 0);
    CHECK(e.line() > 0);
  }
  SUBCASE("missing link speeds for a tier") {
    const auto e = fathom::test::load_error(replaced(kValid, "      - {bandwidth: 400Gbps, latency: 1us}\n", ""));
    CHECK(e.key_path() == "cluster.fabric.links");
    CHECK(e.line() == 14);  // the list itself, which starts on the line after its key
  }
  SUBCASE("a key that does not apply to the pattern") {
    const auto e = fathom::test::load_error(replaced(kValid, "  bytes: 1MB", "  bytes: 1MB\n  incast_target: 3"));
    CHECK(e.key_path() == "workload.incast_target");
  }
  SUBCASE("an unknown pattern, with a hint") {
    const auto e = fathom::test::load_error(replaced(kValid, "pattern: permutation", "pattern: permutaton"));
    CHECK(e.hint().find("permutation") != std::string::npos);
  }
}

TEST_CASE("a flows file is read strictly and its host names resolved at their row") {
  fathom::test::write_scratch_file("flows.csv",
                                   "id,src,dst,bytes,start_s\n0,n0.nic0,n5.nic0,1000,0\n1,n1.nic0,n9.nic0,2e6,0.001\n");
  const std::string scenario =
      replaced(kValid, "  pattern: permutation\n  bytes: 1MB\n", "  pattern: file\n  flows_file: flows.csv\n");
  const auto s = load_scenario(fathom::test::write_scratch_file("file.yaml", scenario));
  REQUIRE(s.traffic.rows.size() == 2);
  const auto topology = fathom::topo::build_cluster(s.cluster);
  const auto flows = fathom::scenario::traffic_flows(s, topology);
  CHECK(flows[1].bytes == 2e6);
  CHECK(flows[1].start.ns() == 1'000'000);
  CHECK(topology.vertex(flows[1].dst).name == "n9.nic0");

  fathom::test::write_scratch_file("flows.csv",
                                   "id,src,dst,bytes,start_s\n0,n0.nic0,n5.nic0,1000,0\n1,n1.nic0,n99.nic0,2e6,0\n");
  const auto unknown = load_scenario(fathom::test::write_scratch_file("file.yaml", scenario));
  try {
    fathom::scenario::traffic_flows(unknown, topology);
    FAIL("an unknown host was accepted");
  } catch (const ScenarioError& e) {
    CHECK(e.file().find("flows.csv") != std::string::npos);
    CHECK(e.line() == 3);
    CHECK(e.key_path() == "dst");
  }

  fathom::test::write_scratch_file("flows.csv", "id,src,dst,bytes,start_s\n0,n0.nic0,n5.nic0,-5,0\n");
  CHECK_THROWS_WITH_AS(load_scenario(fathom::test::write_scratch_file("file.yaml", scenario)),
                       doctest::Contains("flows.csv:2"), ScenarioError);
  fathom::test::write_scratch_file("flows.csv", "id,source,dst,bytes,start_s\n");
  CHECK_THROWS_WITH_AS(load_scenario(fathom::test::write_scratch_file("file.yaml", scenario)),
                       doctest::Contains("header"), ScenarioError);
}

TEST_CASE("flows_file: only a regular file with a header and a flow; CRLF and CR line endings read") {
  const std::string valid = kValid;
  const auto with_file = [&](const std::string& path) {
    return replaced(valid, "  pattern: permutation\n  bytes: 1MB\n", "  pattern: file\n  flows_file: " + path + "\n");
  };
  const auto error_for = [&](const std::string& path) {
    try {
      load_scenario(fathom::test::write_scratch_file("file.yaml", with_file(path)));
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  // Each was accepted as "0 flows" (the device read until memory ran out).
  CHECK(error_for("/dev/zero").find("a character device") != std::string::npos);
  CHECK(error_for("/tmp").find("a folder") != std::string::npos);
  fathom::test::write_scratch_file("empty.csv", "");
  CHECK(error_for("empty.csv")
            .find("empty.csv:1:1: header: expected the header id,src,dst,bytes,start_s, found an empty file") !=
        std::string::npos);
  fathom::test::write_scratch_file("header-only.csv", "id,src,dst,bytes,start_s\n");
  CHECK(error_for("header-only.csv").find("expected at least one flow after the header") != std::string::npos);
  // The same two flows with each line ending, and the same error line in each.
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    CAPTURE(eol.size());
    fathom::test::write_scratch_file("eol.csv", "id,src,dst,bytes,start_s" + eol + "0,n0.nic0,n5.nic0,1000,0" + eol +
                                                    "1,n1.nic0,n9.nic0,2e6,0.001" + eol);
    CHECK(load_scenario(fathom::test::write_scratch_file("file.yaml", with_file("eol.csv"))).traffic.rows.size() == 2);
    fathom::test::write_scratch_file("eol.csv", "id,src,dst,bytes,start_s" + eol + "0,n0.nic0,n5.nic0,1000,0" + eol +
                                                    "1,n1.nic0,n9.nic0,lots,0" + eol);
    CHECK(error_for("eol.csv").find("eol.csv:3:") != std::string::npos);
  }
}

TEST_CASE("a scenario with CR or CRLF line endings reads as with LF, errors on the same line") {
  std::string valid = kValid;
  for (const std::string eol : {"\r\n", "\r"}) {
    CAPTURE(eol.size());
    std::string converted;
    for (char c : valid) converted += c == '\n' ? eol : std::string(1, c);
    CHECK(load_scenario(fathom::test::write_scratch_file("eol.yaml", converted)).cluster.nodes ==
          load_scenario(fathom::test::write_scratch_file("lf.yaml", valid)).cluster.nodes);
    const std::string bad = replaced(converted, "bytes: 1MB", "bytes: 1QB");
    const ScenarioError e = [&] {
      try {
        load_scenario(fathom::test::write_scratch_file("eol.yaml", bad));
      } catch (const ScenarioError& error) {
        return error;
      }
      FAIL("loaded");
      throw std::logic_error("unreachable");
    }();
    const std::string lf_bad = replaced(valid, "bytes: 1MB", "bytes: 1QB");
    CHECK(e.line() == fathom::test::load_error(lf_bad).line());
    CHECK(e.line() > 1);
  }
}
