// The scenario's `cost:` section: the price list's defaults for a catalog node, overrides, and
// the errors a price the list cannot give, a bad value or a cost criterion without the section get.
#include <doctest/doctest.h>

#include <string>

#include "scenario_files.hpp"
#include "scenarios/price_list.hpp"
#include "scenarios/scenario.hpp"

using fathom::scenario::load_scenario;
using fathom::scenario::Scenario;
using fathom::scenario::ScenarioError;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

// A 16-node training scenario on `node`, with `tail` appended (a cost: or expect: section).
std::string training_on(const std::string& node, const std::string& tail) {
  return "cluster:\n"
         "  nodes: 16\n"
         "  node: " +
         node +
         "\n"
         "  fabric:\n"
         "    tiers: 2\n"
         "    radix: 64\n"
         "    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "workload:\n"
         "  kind: training\n"
         "  model: llama3-8b\n"
         "  sequence: 4096\n"
         "  global_batch: 128\n"
         "  parallel: {tp: 8}\n" +
         tail;
}

Scenario load_text(const std::string& text) { return load_scenario(write_scratch_file("cost.yaml", text)); }

}  // namespace

TEST_CASE("the price list reads, and every entry names a catalog node or switch") {
  const auto* h100 = fathom::scenario::find_price("dgx-h100");
  REQUIRE(h100 != nullptr);
  CHECK(h100->usd == 269010);
  CHECK(h100->watts == 10200);
  CHECK(h100->source.find("SemiAnalysis") != std::string::npos);
  const auto* qm9700 = fathom::scenario::find_price("quantum-2-qm9700");
  REQUIRE(qm9700 != nullptr);
  CHECK(qm9700->usd == 36000);
  CHECK(qm9700->watts == 0);
  CHECK(fathom::scenario::find_price("generic-8gpu-roce") == nullptr);
}

TEST_CASE("cost: takes the node's and the switch's figures from the price list and the catalog") {
  const Scenario s = load_text(training_on("dgx-h100", "cost: {}\n"));
  REQUIRE(s.cost.has_value());
  CHECK(s.cost->node_usd == 269010);
  CHECK(s.cost->node_watts == 10200);
  CHECK(s.cost->switch_name == "quantum-2-qm9700");
  CHECK(s.cost->switch_usd == 36000);
  CHECK(s.cost->switch_watts == 750);  // switches.yaml
  CHECK(s.cost->pue == 1.58);
  // No section, no cost model.
  CHECK_FALSE(load_text(training_on("dgx-h100", "")).cost.has_value());
}

TEST_CASE("cost: overrides, in the section's units") {
  const Scenario s = load_text(training_on(
      "dgx-h100",
      "cost:\n  node_price: $300000\n  node_power: 11kW\n  pue: 1.2\n  maintenance: 12%\n  years: 6\n"
      "  switch: spectrum-4-sn5600\n  switch_price: $120000\n  leaf_spine: {port_price: $900, cable_price: $80}\n"
      "  rent: {on_demand: $6.50/h, reserved: $3/h}\n"));
  CHECK(s.cost->node_usd == 300000);
  CHECK(s.cost->node_watts == 11000);
  CHECK(s.cost->pue == 1.2);
  CHECK(s.cost->maintenance == doctest::Approx(0.12));
  CHECK(s.cost->years == 6);
  CHECK(s.cost->switch_name == "spectrum-4-sn5600");
  CHECK(s.cost->switch_usd == 120000);
  CHECK(s.cost->switch_watts == 1000);
  CHECK(s.cost->leaf_spine.port_usd == 900);
  CHECK(s.cost->leaf_spine.cable_usd == 80);
  CHECK(s.cost->nic_leaf.port_usd == 625);  // untouched: the default
  CHECK(s.cost->on_demand_usd_per_gpu_hour == 6.5);
  CHECK(s.cost->reserved_usd_per_gpu_hour == 3);
}

TEST_CASE("cost: what the price list cannot give is an error naming the key to set") {
  ScenarioError e = load_error(training_on("generic-8gpu-roce", "cost: {}\n"));
  CHECK(e.key_path() == "cost.node_price");
  CHECK(std::string(e.what()).find("generic-8gpu-roce") != std::string::npos);
  CHECK(std::string(e.what()).find("set cost.node_price") != std::string::npos);
  e = load_error(training_on("generic-8gpu-roce", "cost: {node_price: $250000}\n"));
  CHECK(e.key_path() == "cost.node_power");
  e = load_error(training_on("dgx-h100", "cost: {switch: spectrum-4-sn5600}\n"));
  CHECK(e.key_path() == "cost.switch_price");
  // Given both, a generic node prices.
  CHECK(load_text(training_on("generic-8gpu-roce", "cost: {node_price: $250000, node_power: 10kW}\n")).cost->node_usd ==
        250000);
}

TEST_CASE("cost: bad values and unknown keys are located") {
  ScenarioError e = load_error(training_on("dgx-h100", "cost: {node_price: 269010}\n"));
  CHECK(e.key_path() == "cost.node_price");
  CHECK(std::string(e.what()).find("dollar sign") != std::string::npos);
  e = load_error(training_on("dgx-h100", "cost: {rent: {on_demand: $12}}\n"));
  CHECK(e.key_path() == "cost.rent.on_demand");
  e = load_error(training_on("dgx-h100", "cost: {pue: -1}\n"));
  CHECK(e.key_path() == "cost.pue");
  e = load_error(training_on("dgx-h100", "cost: {node_prize: $1}\n"));
  CHECK(std::string(e.what()).find("did you mean \"node_price\"") != std::string::npos);
  e = load_error(training_on("dgx-h100", "cost: {switch: qm9700}\n"));
  CHECK(e.key_path() == "cost.switch");
}

TEST_CASE("expect: cost criteria need a cost section, and run_cost a token budget") {
  ScenarioError e = load_error(training_on("dgx-h100", "expect: {capex: \"<= $5e6\"}\n"));
  CHECK(e.key_path() == "expect.capex");
  CHECK(std::string(e.what()).find("add cost: {}") != std::string::npos);
  e = load_error(training_on("dgx-h100", "cost: {}\nexpect: {run_cost: \"<= $1e6\"}\n"));
  CHECK(e.key_path() == "expect.run_cost");
  const Scenario s =
      load_text(training_on("dgx-h100", "cost: {}\nexpect: {capex: \"<= $5e6\", facility_power: \"< 250kW\"}\n"));
  REQUIRE(s.expectations.size() == 2);
  CHECK(s.expectations[0].value == 5e6);
  CHECK(s.expectations[1].value == 250e3);
}
