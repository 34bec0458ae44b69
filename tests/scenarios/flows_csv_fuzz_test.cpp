// Fuzzing the flows CSV reader: every mutation of a valid file either loads (and then
// resolves or fails at a row) or is a ScenarioError naming the CSV. Never another
// exception, a crash or a hang. Deterministic: a fixed seed and a fixed count.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"
#include "topologies/cluster.hpp"

TEST_CASE("fuzz: mutated flows files load or fail with ScenarioError only") {
  const std::string scenario = R"(cluster:
  nodes: 8
  node: {gpus: 0, nics: 1}
  fabric:
    hosts_per_leaf: 4
    spines: 2
    links:
      - {bandwidth: 100Gbps, latency: 1us}
      - {bandwidth: 100Gbps, latency: 1us}
workload:
  kind: traffic
  pattern: file
  flows_file: fuzz-flows.csv
)";
  const std::string path = fathom::test::write_scratch_file("fuzz.yaml", scenario);
  const std::string valid =
      "id,src,dst,bytes,start_s\n0,n0.nic0,n5.nic0,1000,0\n1,n1.nic0,n7.nic0,2e6,0.001\n2,n3.nic0,n2.nic0,5,1e-9\n";
  const std::string alphabet = "0123456789,.-+eE\n\r n.icabsrdt_\"'\t\x01\xff";
  std::mt19937_64 rng(20261130);
  int loaded = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !text.empty(); ++k) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;  // flip a byte
        case 1:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;  // insert one
        case 2:
          text.erase(at, 1 + rng() % 8);
          break;  // delete a run
        default:
          text.resize(at);
          break;  // truncate
      }
    }
    fathom::test::write_scratch_file("fuzz-flows.csv", text);
    try {
      const auto s = fathom::scenario::load_scenario(path);
      const auto topology = fathom::topo::build_cluster(s.cluster);
      (void)fathom::scenario::traffic_flows(s, topology);
      ++loaded;
    } catch (const fathom::scenario::ScenarioError& e) {
      REQUIRE(std::string(e.what()).find("fuzz-flows.csv") != std::string::npos);
      ++rejected;
    }
  }
  MESSAGE(loaded << " mutated flows files loaded, " << rejected << " rejected");
  CHECK(loaded > 0);
  CHECK(rejected > 0);
}
