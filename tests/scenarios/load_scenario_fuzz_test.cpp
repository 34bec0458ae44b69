// Deterministic fuzzing of the real loader: the shipped example and validation scenarios,
// mutated with the shared text mutator and loaded through load_scenario() with and without
// --set overrides, either load (and pass the training and cluster checks) or fail with
// ScenarioError at a place in the file or the override. Never another exception, a crash or a
// hang; the seed is fixed so a failure reproduces.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"
#include "tests/scenarios/yaml_mutations.hpp"
#include "tests/support/fuzz_rng.hpp"

using fathom::scenario::load_scenario;
using fathom::scenario::ScenarioError;

TEST_CASE("fuzz: mutated real scenarios and --set overrides load or fail with ScenarioError only") {
  constexpr int kIterations = 5'000;
  const std::vector<std::string> seeds = {
      fathom::test::read_source_file("scenarios/examples/pilot-16-nodes.yaml"),
      fathom::test::read_source_file("scenarios/examples/fat-tree-a2a-64.yaml"),
      fathom::test::read_source_file("scenarios/validation/known-to-run/llama3-405b-128k-16384gpu.yaml"),
      fathom::test::read_source_file("scenarios/validation/megatron-sc21-artifact/145.6b.yaml"),
      fathom::test::read_source_file("scenarios/examples/cs3-llama3-70b-weight-streaming.yaml"),
      fathom::test::read_source_file("scenarios/examples/cs3-llama3.1-70b-serving.yaml")};
  const std::vector<std::string> overrides = {"cluster.nodes=8",
                                              "workload.parallel.tp=4",
                                              "workload.parallel.zero=3",
                                              "workload.parallel.cp_comm=all_gather",
                                              "workload.parallel.embedding_in_split=true",
                                              "workload.micro_batch=2",
                                              "workload.precision=fp8",
                                              "cluster.fabric.routing=d-mod-k",
                                              "hardware.accelerator={base: h100-sxm, runtime_reserve: 4GiB}",
                                              "cluster.systems=2048",
                                              "cluster.system={base: cs-2, compute_efficiency: 0.4}",
                                              "cluster.swarmx={base: swarmx, fan_out: 2}"};
  fathom::test::FuzzRng rng(20261201);
  int loaded = 0;
  int rejected = 0;
  for (int i = 0; i < kIterations; ++i) {
    const std::string& seed = seeds[rng.below(seeds.size())];
    const std::string text = rng.below(8) == 0 ? seed : fathom::test::mutate(seed, rng);
    std::vector<std::string> set;
    if (rng.below(3) == 0) {
      const std::string& o = overrides[rng.below(overrides.size())];
      set.push_back(rng.below(2) == 0 ? o : fathom::test::mutate(o, rng));
    }
    const std::string file = fathom::test::write_scratch_file("fuzz-load.yaml", text);
    try {
      const fathom::scenario::Scenario s = load_scenario(file, set);
      // A wafer-scale scenario that loads runs: the loader checked everything the step needs.
      if (s.workload == fathom::scenario::WorkloadKind::kWaferTraining) {
        CHECK(fathom::wafer::weight_streaming_step(s.wafer_training, s.wafer).step_s > 0);
      }
      ++loaded;
    } catch (const ScenarioError& e) {
      ++rejected;
      const bool in_file = e.file() == file && e.line() >= 0 && e.column() >= 0;
      const bool at_override = !set.empty() && e.file() == "--set " + set.front();
      if (!(in_file || at_override)) {
        FAIL("iteration " << i << ": error located at " << e.file() << ":" << e.line() << ": " << e.what());
      }
    } catch (const std::exception& e) {
      FAIL("iteration " << i << ": " << typeid(e).name() << ": " << e.what() << "\ninput:\n"
                        << text << "\n--set " << (set.empty() ? "" : set.front()));
    } catch (...) {
      FAIL("iteration " << i << ": an exception of unknown type\ninput:\n" << text);
    }
  }
  MESSAGE(kIterations << " mutated scenarios: " << loaded << " loaded, " << rejected << " rejected");
  CHECK(loaded + rejected == kIterations);
  // Both outcomes occur: the mutations neither always break the scenario nor never touch it.
  CHECK(loaded > kIterations / 20);
  CHECK(rejected > kIterations / 4);
}
