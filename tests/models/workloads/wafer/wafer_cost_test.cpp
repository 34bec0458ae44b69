// A wafer-scale cluster through the cost model: its census from the SwarmX tree, the bill line by
// line, the power as the step keeps the wafers busy, and the figures Cerebras does not publish.
#include "models/workloads/wafer/wafer_cost.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "tests/models/workloads/wafer/wafer_fixtures.hpp"

namespace fathom::wafer {

namespace {

WaferCluster cluster(int systems) { return test::test_cluster(systems); }

// Round prices for the test: none of these is published.
cost::CostSpec prices() {
  cost::CostSpec s;
  s.node_usd = 2e6;
  s.node_watts = 25e3;
  s.switch_usd = 50e3;
  s.switch_watts = 1e3;
  s.rack_usd = 0;
  return s;
}

WaferStep step(double step_s, double compute_s, double tokens_per_step) {
  WaferStep w;
  w.step_s = step_s;
  w.compute_s = compute_s;
  w.tokens_per_step = tokens_per_step;
  return w;
}

}  // namespace

TEST_CASE("The census of a wafer-scale cluster: systems, SwarmX nodes by tier, the cables up to them") {
  const cost::Census c = wafer_census(cluster(64));
  CHECK(c.nodes == 64);
  CHECK(c.gpus == 64);
  REQUIRE(c.fabric.size() == 2);
  CHECK(c.fabric[0].switches == 16);  // level 1
  CHECK(c.fabric[0].cables_down == 64);
  CHECK(c.fabric[1].switches == 4 + 1);  // levels 2 and 3
  CHECK(c.fabric[1].cables_down == 16 + 4);
  const cost::Census one = wafer_census(cluster(4));
  REQUIRE(one.fabric.size() == 1);
  CHECK(one.fabric[0].switches == 1);
}

TEST_CASE("The bill and the power, line by line") {
  const WaferCluster c = cluster(64);
  const cost::CostSpec spec = prices();
  const WaferPrices memoryx{3e6};
  // A step of 10 s of which the wafers compute 4; 16 M tokens a step, 1.6 T tokens a run.
  const cost::CostResult r = wafer_cost(spec, memoryx, c, step(10, 4, 16e6), 1.6e12);
  const cost::CablingCost& low = spec.nic_leaf;
  const cost::CablingCost& high = spec.leaf_spine;
  const double capex = 64 * 2e6 + 21 * 50e3 + 2 * 64 * low.port_usd + 64 * low.cable_usd + 2 * 20 * high.port_usd +
                       20 * high.cable_usd + 3e6;
  CHECK(r.capex_usd == doctest::Approx(capex).epsilon(1e-12));
  bool named = false;
  for (const cost::CapexLine& line : r.capex) named = named || line.item == "test-system systems";
  CHECK(named);
  const double ports = 2 * 64 * low.port_watts + 2 * 20 * high.port_watts;
  const double peak = 64 * 25e3 + 21 * 1e3 + ports + 20e3;
  CHECK(r.power_w_it_peak == doctest::Approx(peak).epsilon(1e-12));
  // A wafer draws its full power while it computes (0.4 of the step), cost.gpu_idle of it otherwise.
  CHECK(r.power_w_it == doctest::Approx(peak - 64 * 25e3 * (1 - spec.gpu_idle) * 0.6).epsilon(1e-12));
  // The run: 100,000 steps of 10 s on all 64 systems at the TCO's cost per system-hour.
  CHECK(r.usd_per_run == doctest::Approx(r.usd_per_gpu_hour * 64 * 10 * 1e5 / 3600).epsilon(1e-12));
}

TEST_CASE("Input workers are priced and powered as appliances, their price and power required") {
  WaferCluster c = cluster(64);
  const cost::CostSpec spec = prices();
  const cost::CostResult without = wafer_cost(spec, WaferPrices{3e6}, c, step(10, 4, 16e6), 0);
  c.input_workers = 64;
  c.input_worker.name = "worker";
  c.input_worker.bytes_per_s = 12.5e9;
  auto v = cost_violation(spec, WaferPrices{3e6}, c);
  REQUIRE(v);
  CHECK(v->field == "cost.input_worker_price");
  WaferPrices priced{3e6};
  priced.input_worker_usd = 2e4;
  v = cost_violation(spec, priced, c);
  REQUIRE(v);
  CHECK(v->field == "cluster.input_worker.power");
  c.input_worker.power_w = 1e3;
  const cost::CostResult with = wafer_cost(spec, priced, c, step(10, 4, 16e6), 0);
  CHECK(with.capex_usd - without.capex_usd == doctest::Approx(64 * 2e4));
  CHECK(with.power_w_it_peak - without.power_w_it_peak == doctest::Approx(64 * 1e3));
}

TEST_CASE("Pricing needs every figure Cerebras does not publish") {
  const WaferCluster c = cluster(16);
  const WaferPrices memoryx{3e6};
  CHECK_FALSE(cost_violation(prices(), memoryx, c));
  cost::CostSpec spec = prices();
  spec.node_usd = 0;
  auto v = cost_violation(spec, memoryx, c);
  REQUIRE(v);
  CHECK(v->field == "cost.node_price");
  CHECK_THROWS_AS(wafer_cost(spec, memoryx, c, step(1, 1, 1), 0), sim::SpecError);
  v = cost_violation(prices(), WaferPrices{}, c);
  REQUIRE(v);
  CHECK(v->field == "cost.memoryx_price");
  WaferCluster dark = c;
  dark.memoryx.power_w = 0;
  v = cost_violation(prices(), memoryx, dark);
  REQUIRE(v);
  CHECK(v->field == "cluster.memoryx.power");
}

TEST_CASE("A service on wafers: the systems on one switch, or on two tiers of them, and the bill") {
  // 8 systems x 3 ports fit one 64-port switch.
  const cost::Census one = wafer_serving_census(8, 3, 64);
  CHECK(one.nodes == 8);
  CHECK(one.nic_ports == 24);
  REQUIRE(one.fabric.size() == 1);
  CHECK(one.fabric[0].switches == 1);
  CHECK(one.fabric[0].cables_down == 24);
  CHECK(one.fabric[0].ports_up == 0);
  // 100 x 3 = 300 ports: leaves of 32 down and 32 up, ceil(300 / 32) = 10 of them, and
  // ceil(300 / 64) = 5 spines for their 300 uplinks.
  const cost::Census two = wafer_serving_census(100, 3, 64);
  REQUIRE(two.fabric.size() == 2);
  CHECK(two.fabric[0].switches == 10);
  CHECK(two.fabric[0].ports() == 600);
  CHECK(two.fabric[1].switches == 5);
  CHECK(two.fabric[1].cables_down == 300);
  for (const cost::FabricTierCensus& t : two.fabric) CHECK(t.most_ports <= 64);
  // Two tiers reach 64 leaves of 32 systems' ports: 682 systems of 3 ports.
  CHECK(most_serving_systems(3, 64) == 682);
  CHECK(most_serving_systems(1, 8) == 32);
  CHECK_NOTHROW(wafer_serving_census(682, 3, 64));
  CHECK_THROWS_AS(wafer_serving_census(683, 3, 64), std::invalid_argument);

  // The bill: systems, one switch, optics at both ends of each system's cables; no MemoryX.
  const WaferCluster c = cluster(8);
  cost::CostSpec spec = prices();
  spec.switch_name = "ethernet-64x400g";
  spec.switch_radix = 64;
  WaferPrices ports;
  ports.system_ports = 3;
  cost::Usage usage;
  usage.gpus_used = 8;
  usage.busy_fraction = 0.5;
  usage.step_seconds = 100;
  usage.tokens_per_step = 1e5;
  const cost::CostResult r = wafer_serving_cost(spec, ports, c, usage);
  const cost::CablingCost& low = spec.nic_leaf;
  CHECK(r.capex_usd == doctest::Approx(8 * 2e6 + 50e3 + 2 * 24 * low.port_usd + 24 * low.cable_usd).epsilon(1e-12));
  const double peak = 8 * 25e3 + 1e3 + 2 * 24 * low.port_watts;
  CHECK(r.power_w_it_peak == doctest::Approx(peak).epsilon(1e-12));
  // The systems draw cost.node_power while busy, cost.gpu_idle of it otherwise.
  CHECK(r.power_w_it == doctest::Approx(peak - 8 * 25e3 * (1 - spec.gpu_idle) * 0.5).epsilon(1e-12));
  bool named = false;
  for (const cost::CapexLine& line : r.capex) named = named || line.item == "test-system systems";
  CHECK(named);

  // What pricing it needs, at its key.
  cost::CostSpec unpriced = spec;
  unpriced.switch_usd = 0;
  auto v = serving_cost_violation(unpriced, ports, c);
  REQUIRE(v);
  CHECK(v->field == "cost.switch_price");
  CHECK_THROWS_AS(wafer_serving_cost(unpriced, ports, c, usage), sim::SpecError);
  v = serving_cost_violation(spec, ports, cluster(683));
  REQUIRE(v);
  CHECK(v->field == "cluster.systems");
}

}  // namespace fathom::wafer
