// The report layer: result objects that agree with the models they summarise, and writers
// that say what the result holds.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "report/calibration/measured_system.hpp"
#include "report/collectives/nccl_tests_sweep.hpp"
#include "report/cost/cost_report.hpp"
#include "report/traffic/traffic_report.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/simulation.hpp"
#include "topologies/cluster.hpp"

namespace fathom::report {
namespace {

std::string example(const std::string& name) { return std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + name; }

// What a FILE* writer printed.
template <typename Write>
std::string printed(Write write) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buffer, &size);
  REQUIRE(f != nullptr);
  write(f);
  std::fclose(f);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST_CASE("a training report evaluates each expectation on the simulated figure it names") {
  const scenario::Scenario s = scenario::load_scenario(example("pilot-16-nodes.yaml"));
  const TrainingReport r = evaluate_training(s, {"my-catalogs"});
  REQUIRE(r.fits());
  REQUIRE(r.expectations.size() == 2);
  CHECK(r.expectations[0].expectation.key == "mfu");
  CHECK(r.expectations[0].actual == r.result.mfu);
  CHECK(r.expectations[0].pass == (r.result.mfu >= 0.30));
  CHECK(r.expectations[1].actual == r.result.memory.peak_bytes);
  CHECK(r.expectations[1].pass == (r.result.memory.peak_bytes <= 80e9));
  CHECK(r.all_pass == (r.expectations[0].pass && r.expectations[1].pass));

  // The cluster as the step model built it: its description, and the busiest link by name.
  const topo::Topology built = topo::build_cluster(s.cluster);
  CHECK(r.result.cluster.description == built.summary.description);
  REQUIRE(!r.result.links.empty());
  for (const auto& l : r.result.links) {
    CHECK(l.name == built.link(l.link).name);
    CHECK(l.cls == built.link(l.link).cls);
  }

  std::ostringstream json;
  write_training_json(json, r);
  CHECK(json.str().find("\"fingerprint\": \"" + sim::format_fingerprint(r.result.fingerprint) + "\"") !=
        std::string::npos);
  CHECK(json.str().find("\"my-catalogs\"") != std::string::npos);
  const std::string summary = printed([&](std::FILE* f) { write_training_summary(f, r); });
  CHECK(summary.find("expectations:") != std::string::npos);
  CHECK(summary.find("fingerprint=" + sim::format_fingerprint(r.result.fingerprint)) != std::string::npos);
}

TEST_CASE("a training report prices its cluster: the cost section, its criteria and its writers") {
  const scenario::Scenario s = scenario::load_scenario(example("dgx-h100-64-cost.yaml"));
  const TrainingReport r = evaluate_training(s);
  REQUIRE(r.fits());
  REQUIRE(r.cost.has_value());
  const cost::CostResult& c = *r.cost;
  // The census the cost model priced is the built cluster's: 64 nodes, 16 leaves, 8 spines.
  REQUIRE(c.capex.size() >= 3);
  CHECK(c.capex[0].count == 64);
  CHECK(c.capex[1].count == 16);
  CHECK(c.capex[2].count == 8);
  // The step's accelerators were busy part of the time: the IT power lies between idle and peak.
  const cost::Usage u = training_usage(s, r.result);
  CHECK(u.busy_fraction > 0.3);
  CHECK(u.busy_fraction < 1.0);
  CHECK(c.power_w_it < c.power_w_it_peak);
  CHECK(c.power_w_it > c.power_w_it_peak - 512 * 700 * (1 - s.cost->gpu_idle));
  // A run of 1e12 tokens: steps x the step's cost; rented, GPU-hours x the hourly price.
  CHECK(c.usd_per_run == doctest::Approx(c.usd_per_step * 1e12 / (512.0 * 8192)));
  CHECK(c.on_demand_usd_per_run == doctest::Approx(r.result.gpu_hours * 12.29));
  CHECK(c.reserved_usd_per_run == doctest::Approx(r.result.gpu_hours * 5.40));
  for (const auto& o : r.expectations) {
    if (o.expectation.key == "capex") CHECK(o.actual == c.capex_usd);
    if (o.expectation.key == "run_cost") CHECK(o.actual == c.usd_per_run);
    if (o.expectation.key == "facility_power") CHECK(o.actual == c.power_w_facility);
  }
  std::ostringstream json;
  write_training_json(json, r);
  CHECK(json.str().find("\"cost\": {") != std::string::npos);
  CHECK(json.str().find("\"usd_per_million_tokens\"") != std::string::npos);
  const std::string summary = printed([&](std::FILE* f) { write_training_summary(f, r); });
  CHECK(summary.find("total capex") != std::string::npos);
  CHECK(summary.find("racks: 17 of 40.8 kW") != std::string::npos);
  // Without the section, no cost.
  CHECK_FALSE(evaluate_training(scenario::load_scenario(example("pilot-16-nodes.yaml"))).cost.has_value());
}

TEST_CASE("a strategy that does not fit is a result, and an error only when required to fit") {
  const scenario::Scenario s = scenario::load_scenario(
      example("pilot-16-nodes.yaml"), {"workload.parallel.tp=1", "workload.parallel.pp=1", "workload.recompute=none"});
  const TrainingReport r = evaluate_training(s);
  REQUIRE_FALSE(r.fits());
  CHECK(r.result.memory.peak_bytes > r.result.memory.capacity_bytes);
  CHECK(r.expectations.empty());
  CHECK(r.result.cluster.description == topo::build_cluster(s.cluster).summary.description);
  const std::string summary = printed([&](std::FILE* f) { write_training_summary(f, r); });
  CHECK(summary.find("over)") != std::string::npos);
  CHECK(summary.find("step time") == std::string::npos);
  try {
    require_fits(r);
    FAIL("require_fits accepted a strategy that does not fit");
  } catch (const scenario::ScenarioError& e) {
    CHECK(std::string(e.what()).find("workload.parallel") != std::string::npos);
  }
}

TEST_CASE("actual values are printed in the unit the expectation was written in") {
  scenario::Expectation percent{"mfu", ">=", 0.45, ">= 45%", {}};
  CHECK(in_written_unit(0.4712, percent) == "47.12%");
  scenario::Expectation gigabytes{"peak_memory_per_rank", "<=", 80e9, "<= 80GB", {}};
  CHECK(in_written_unit(75e9, gigabytes) == "75GB");
  scenario::Expectation bare{"tokens_per_s", ">=", 0, ">= 0", {}};
  CHECK(in_written_unit(1234.5, bare) == "1234.5");
}

TEST_CASE("an nccl-tests sweep doubles the size and reports nccl-tests' bus bandwidth") {
  const scenario::Scenario s = scenario::load_scenario(example("dgx-h100-node.yaml"));
  NcclTestsRequest q;
  q.min_bytes = 1 << 20;
  q.max_bytes = 8 << 20;
  const NcclTestsSweep w = run_nccl_tests_sweep(s, q);
  REQUIRE(w.rows.size() == 4);
  const int n = static_cast<int>(w.rank_vertices.size());
  CHECK(n == 8);
  for (std::size_t i = 0; i < w.rows.size(); ++i) {
    const coll::NcclSize& z = w.rows[i].size;
    CHECK(z.bytes == (std::int64_t{1} << 20) << i);
    CHECK(z.algbw_gbps == doctest::Approx(z.bytes / z.timing.seconds / 1e9));
    CHECK(z.busbw_gbps == doctest::Approx(z.algbw_gbps * 2.0 * (n - 1) / n));  // all-reduce's factor
  }
  const std::string table = printed([&](std::FILE* f) { write_nccl_tests_table(f, w); });
  CHECK(table.find("# Avg bus bandwidth") != std::string::npos);

  q.nodes = 2;  // the scenario has one node
  CHECK_THROWS_WITH_AS(run_nccl_tests_sweep(s, q), doctest::Contains("--nodes"), std::invalid_argument);
}

TEST_CASE("an nccl-tests sweep gives the same table on one thread or several") {
  // 4 nodes of the pilot cluster, 8 B by 4x up to 64 MiB (the tree and the rings): each size on
  // a timer of its own thread, largest first, must give every row exactly as one timer does.
  const scenario::Scenario s = scenario::load_scenario(example("pilot-16-nodes.yaml"));
  NcclTestsRequest q;
  q.nodes = 4;
  q.min_bytes = 8;
  q.max_bytes = 64 << 20;
  q.step_factor = 4;
  const std::string one = printed([&](std::FILE* f) { write_nccl_tests_table(f, run_nccl_tests_sweep(s, q)); });
  q.threads = 3;
  const NcclTestsSweep w = run_nccl_tests_sweep(s, q);
  CHECK(w.rows.size() == 12);  // 8 B to 32 MiB
  CHECK(printed([&](std::FILE* f) { write_nccl_tests_table(f, w); }) == one);
  // A forced algorithm that cannot run the op is refused before any size, on any thread count.
  q.op = "broadcast";
  q.algo = "nvls";
  for (unsigned threads : {1U, 3U}) {
    q.threads = threads;
    CHECK_THROWS_WITH_AS(run_nccl_tests_sweep(s, q), doctest::Contains("--algo nvls"), std::invalid_argument);
  }
}

TEST_CASE("a traffic report's summary agrees with its flows") {
  const TrafficReport t = evaluate_traffic(scenario::load_scenario(example("fat-tree-a2a-64.yaml")), false);
  const PreparedTraffic& p = t.traffic;
  REQUIRE(!p.flows.empty());
  double bytes = 0;
  for (const auto& f : p.flows) bytes += f.bytes;
  CHECK(t.total_bytes == bytes);
  CHECK(t.completion.p50_s <= t.completion.p99_s);
  CHECK(t.completion.p99_s <= t.completion.max_s);
  CHECK(t.completion.max_s <= t.result.makespan.to_seconds());
  // No link carried more bytes per unit of capacity than the busiest one.
  const auto load = [&](std::size_t l) {
    return t.result.link_bytes[l] / p.topology.link(static_cast<topo::LinkId>(l)).bytes_per_s;
  };
  for (std::size_t l = 0; l < t.result.link_bytes.size(); ++l) CHECK(load(l) <= load(t.busiest_link));

  CHECK_THROWS_AS(evaluate_traffic(scenario::load_scenario(example("dgx-h100-node.yaml")), false),
                  scenario::ScenarioError);
}

}  // namespace
}  // namespace fathom::report

namespace fathom::report {
namespace {

TEST_CASE("calibrate's system is the catalog node the inputs name through measured_as") {
  CHECK(guess_node({"../shared/calibration-data/azure-nd-h100-v5/nccl_all_reduce.csv"}) == "dgx-h100");
  CHECK(guess_node({"runs/A100-sxm/gemm.csv"}) == "dgx-a100");
  CHECK(guess_node({"runs/h100", "runs/a100"}).empty());  // two systems: the user must say
  CHECK(guess_node({"runs/unknown-gpu"}).empty());

  // A user catalog's node claims a name before the built-in one.
  const auto dir = std::filesystem::temp_directory_path() / "fathom-report-tests" / "measured-as";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nodes.yaml") << "my-h100-box:\n  base: dgx-h100\n  nics: 4\n  measured_as: [h100]\n";
  {
    const scenario::ScopedCatalogs scope({dir.string()});
    CHECK(guess_node({"runs/h100"}) == "my-h100-box");
  }
  // Without measured_as a variant claims nothing: the built-in node keeps the name.
  std::ofstream(dir / "nodes.yaml") << "my-h100-box:\n  base: dgx-h100\n  nics: 4\n";
  const scenario::ScopedCatalogs scope({dir.string()});
  CHECK(guess_node({"runs/h100"}) == "dgx-h100");
}

}  // namespace
}  // namespace fathom::report
