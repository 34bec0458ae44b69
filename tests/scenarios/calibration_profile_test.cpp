// A calibrated profile (`calibration:`): applied over the catalog and under the scenario's own
// keys, read as strictly as a scenario, and rejected with the profile's or the scenario's
// file:line when it is wrong or for another accelerator.
#include "scenarios/calibration_profile.hpp"

#include <doctest/doctest.h>

#include <string>

#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"
#include "tests/scenarios/scenario_files.hpp"
#include "tests/scenarios/yaml_mutations.hpp"

using fathom::scenario::load_calibration_profile;
using fathom::scenario::load_scenario;
using fathom::scenario::ScenarioError;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

const std::string kProfile = R"(profile: 1
system: "test system"
node: dgx-h100
created: "2026-11-30T00:00:00Z"
tool: "by hand"
sources:
  - {file: "a.csv", sha256: 0123, kind: nccl-tests, rows: 3, used: "fit"}
accelerator:
  base: h100-sxm
  efficiency: {hbm: 0.9, kernel_overhead: 3us}
collectives:
  alpha: 2us
  step: 300ns
  nvls_step: 9us
  nvls_adaptive_chunk: true
  efficiency: {nvls: 0.75}
fits: {collectives: {points: 3}}
)";

const std::string kScenario = R"(cluster:
  nodes: 1
  node: dgx-h100
  fabric: {tiers: 2, hosts_per_leaf: 8, spines: 1, links: [{bandwidth: 400Gbps, latency: 1us}, {bandwidth: 400Gbps, latency: 1us}]}
calibration: profile.yaml
workload: {kind: nccl-tests}
)";

}  // namespace

TEST_CASE("calibration: the profile's values over the catalog's, the scenario's own over both") {
  write_scratch_file("profile.yaml", kProfile);
  auto s = load_scenario(write_scratch_file("calibrated.yaml", kScenario));
  CHECK(s.accelerator.name == "h100-sxm");
  CHECK(s.accelerator.efficiency.hbm == doctest::Approx(0.9));
  CHECK(s.accelerator.efficiency.kernel_overhead_s == doctest::Approx(3e-6));
  CHECK(s.collectives.alpha_ns == 2000);
  CHECK(s.collectives.step_ns == 300);
  CHECK(s.collectives.nvls_step_ns == 9000);
  CHECK(s.collectives.nvls_adaptive_chunk);
  CHECK(s.collectives.efficiency.nvls == doctest::Approx(0.75));
  CHECK(s.collectives.launch_ns == 10000);  // not in the profile: the default
  // The catalog's NVLink fraction still defaults the ring's.
  CHECK(s.collectives.efficiency.ring == doctest::Approx(s.accelerator.efficiency.nvlink));

  s = load_scenario(write_scratch_file(
      "overridden.yaml", kScenario + "collectives: {alpha: 7us}\nhardware: {accelerator: {efficiency: {hbm: 0.5}}}\n"));
  CHECK(s.collectives.alpha_ns == 7000);
  CHECK(s.collectives.nvls_step_ns == 9000);
  CHECK(s.accelerator.efficiency.hbm == doctest::Approx(0.5));
  CHECK(s.accelerator.efficiency.kernel_overhead_s == doctest::Approx(3e-6));
}

TEST_CASE("calibration: a missing profile, a wrong one, or one of another accelerator") {
  write_scratch_file("profile.yaml", kProfile);
  ScenarioError e = load_error(std::string(kScenario).replace(kScenario.find("profile.yaml"), 12, "missing.yaml"));
  CHECK(e.key_path() == "calibration");
  CHECK(e.line() == 5);

  write_scratch_file("profile.yaml", std::string(kProfile).replace(kProfile.find("hbm: 0.9"), 8, "hbm: 1.9"));
  e = load_error(kScenario);
  CHECK(e.file().find("profile.yaml") != std::string::npos);
  CHECK(e.key_path() == "accelerator.efficiency.hbm");

  write_scratch_file("profile.yaml", kProfile + "colectives: {}\n");
  e = load_error(kScenario);
  CHECK(e.key_path() == "colectives");

  write_scratch_file("profile.yaml", std::string(kProfile).replace(kProfile.find("profile: 1"), 10, "profile: 2"));
  e = load_error(kScenario);
  CHECK(e.key_path() == "profile");
  CHECK(e.line() == 1);

  write_scratch_file("profile.yaml", std::string(kProfile).replace(kProfile.find("h100-sxm"), 8, "a100-80gb-sxm"));
  e = load_error(kScenario);
  CHECK(e.key_path() == "calibration");
  CHECK(e.found().find("a100-80gb-sxm") != std::string::npos);
  write_scratch_file("profile.yaml", kProfile);
}

TEST_CASE("a profile alone: its node, its accelerator, and its sections checked once") {
  const auto p = load_calibration_profile(write_scratch_file("alone.yaml", kProfile));
  CHECK(p.node == "dgx-h100");
  CHECK(p.accelerator == "h100-sxm");
  CHECK(p.system == "test system");
  std::string bad = kProfile;
  bad.replace(bad.find("node: dgx-h100"), 14, "node: dgx-h1000");
  CHECK_THROWS_AS(load_calibration_profile(write_scratch_file("bad-node.yaml", bad)), ScenarioError);
}

TEST_CASE("fuzz: mutated profiles load or fail with ScenarioError only") {
  constexpr int kIterations = 2'000;
  fathom::test::FuzzRng rng(20261130);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < kIterations; ++i) {
    const std::string text = fathom::test::mutate(kProfile, rng);
    const std::string file = write_scratch_file("fuzzed-profile.yaml", text);
    try {
      load_calibration_profile(file);
      ++accepted;
    } catch (const ScenarioError& e) {
      ++rejected;
      CHECK(e.file() == file);
    } catch (const std::exception& e) {
      FAIL("iteration " << i << ": " << e.what() << "\ninput:\n" << text);
    }
  }
  MESSAGE(kIterations << " mutated profiles: " << accepted << " read, " << rejected << " rejected");
  CHECK(accepted > kIterations / 100);
  CHECK(rejected > kIterations / 2);
}
