// The cost model against its closed form on a hand-counted census: every capex line, the power
// at a given utilisation, the operating cost, TCO and the per-step and per-run figures.
#include "models/cost/cost_model.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using fathom::cost::Census;
using fathom::cost::CostResult;
using fathom::cost::CostSpec;
using fathom::cost::evaluate_cost;
using fathom::cost::FabricTierCensus;
using fathom::cost::kHoursPerYear;
using fathom::cost::Usage;

namespace {

// 4 nodes x 2 GPUs x 2 NICs; 2 leaves (8 NIC cables), 2 spines (4 leaf-spine cables).
Census small_census() {
  Census c;
  c.nodes = 4;
  c.gpus = 8;
  c.nics = 8;
  c.nic_ports = 8;
  FabricTierCensus leaf;
  leaf.tier = 1;
  leaf.switches = 2;
  leaf.cables_down = 8;
  FabricTierCensus spine;
  spine.tier = 2;
  spine.switches = 2;
  spine.cables_down = 4;
  c.fabric = {leaf, spine};
  return c;
}

// Round numbers, so that each figure below is checked against arithmetic done by hand.
CostSpec round_spec() {
  CostSpec s;
  s.node_usd = 100'000;
  s.node_watts = 2'000;
  s.gpu_idle = 0.2;
  s.switch_usd = 10'000;
  s.switch_watts = 500;
  s.nic_leaf = {100, 5, 20};
  s.leaf_spine = {200, 10, 50};
  s.rack_usd = 1'000;
  s.rack_watts = 5'000;
  s.pue = 1.5;
  s.usd_per_kwh = 0.1;
  s.maintenance = 0.1;
  s.usd_per_kw_month = 100;
  s.years = 4;
  s.on_demand_usd_per_gpu_hour = 3;
  s.reserved_usd_per_gpu_hour = 2;
  return s;
}

Usage half_busy() {
  Usage u;
  u.gpu_tdp_watts = 500;
  u.gpus_used = 8;
  u.busy_fraction = 0.5;
  u.step_seconds = 36;
  u.tokens_per_step = 1e6;
  u.steps_per_run = 1000;
  return u;
}

}  // namespace

TEST_CASE("cost: capex, power, opex and TCO by hand on a small fat-tree") {
  const CostResult r = evaluate_cost(small_census(), round_spec(), half_busy());
  // Capex: 4 nodes $400k; 4 switches $40k; NIC-leaf 16 port ends x $100 + 8 cables x $20 = $1,760;
  // leaf-spine 8 x $200 + 4 x $50 = $1,800. Peak IT power: 4 x 2,000 + 4 x 500 + 16 x 5 + 8 x 10
  // = 10,160 W, so 3 racks of 5 kW: $3,000.
  CHECK(r.power_w_it_peak == doctest::Approx(10'160));
  CHECK(r.racks == 3);
  CHECK(r.capex_usd == doctest::Approx(400'000 + 40'000 + 1'760 + 1'800 + 3'000));
  double lines = 0;
  for (const auto& line : r.capex) lines += line.usd();
  CHECK(lines == doctest::Approx(r.capex_usd));
  // Half busy: each GPU draws its idle 20% of 500 W plus half of the other 400 W: 8 GPUs give
  // back 8 x 400 x 0.5 = 1,600 W from the peak.
  CHECK(r.power_w_it == doctest::Approx(10'160 - 1'600));
  CHECK(r.power_w_facility == doctest::Approx(8'560 * 1.5));
  // Opex: energy 12.84 kW x 8,766 h x $0.1; maintenance 10% of capex; space $100 x 12 x 10.16 kW.
  CHECK(r.energy_usd_per_year == doctest::Approx(12.84 * kHoursPerYear * 0.1));
  CHECK(r.maintenance_usd_per_year == doctest::Approx(0.1 * 446'560));
  CHECK(r.space_usd_per_year == doctest::Approx(100 * 12 * 10.16));
  CHECK(r.opex_usd_per_year ==
        doctest::Approx(r.energy_usd_per_year + r.maintenance_usd_per_year + r.space_usd_per_year));
  CHECK(r.tco_usd == doctest::Approx(446'560 + 4 * r.opex_usd_per_year));
  CHECK(r.usd_per_gpu_hour == doctest::Approx(r.tco_usd / (8 * 4 * kHoursPerYear)));
  // A 36 s step on all 8 GPUs: 0.08 GPU-hours; energy 12.84 kW x 0.01 h.
  CHECK(r.usd_per_step == doctest::Approx(r.usd_per_gpu_hour * 0.08));
  CHECK(r.energy_kwh_per_step == doctest::Approx(0.1284));
  CHECK(r.usd_per_million_tokens == doctest::Approx(r.usd_per_step));
  CHECK(r.usd_per_run == doctest::Approx(1000 * r.usd_per_step));
  // Rented: 80 GPU-hours at $3 and $2.
  CHECK(r.on_demand_usd_per_run == doctest::Approx(240));
  CHECK(r.reserved_usd_per_run == doctest::Approx(160));
}

TEST_CASE("cost: power scales with how busy the workload keeps the GPUs, and unused GPUs idle") {
  const Census c = small_census();
  const CostSpec s = round_spec();
  Usage u = half_busy();
  u.busy_fraction = 1;
  CHECK(evaluate_cost(c, s, u).power_w_it == doctest::Approx(10'160));
  u.busy_fraction = 0;
  const double idle = evaluate_cost(c, s, u).power_w_it;
  CHECK(idle == doctest::Approx(10'160 - 8 * 400));
  // Busy GPUs on half the cluster: the other four idle.
  u.busy_fraction = 1;
  u.gpus_used = 4;
  CHECK(evaluate_cost(c, s, u).power_w_it == doctest::Approx(10'160 - 4 * 400));
  // And the run on half the GPUs pays for half of them.
  const CostResult half = evaluate_cost(c, s, u);
  CHECK(half.usd_per_step == doctest::Approx(half.usd_per_gpu_hour * 4 * 0.01));
}

TEST_CASE("cost: no step, no per-step figures; no racks without a rack power") {
  CostSpec s = round_spec();
  s.rack_watts = 0;
  Usage u = half_busy();
  u.step_seconds = 0;
  const CostResult r = evaluate_cost(small_census(), s, u);
  CHECK(r.racks == 0);
  CHECK(r.usd_per_step == 0);
  CHECK(r.usd_per_run == 0);
  CHECK(r.capex_usd == doctest::Approx(443'560));
}

TEST_CASE("cost: a spec that cannot price the cluster is refused, naming the key") {
  CostSpec s = round_spec();
  s.pue = 0.9;
  CHECK_THROWS_WITH_AS(evaluate_cost(small_census(), s, half_busy()), doctest::Contains("cost.pue: expected"),
                       std::invalid_argument);
  s = round_spec();
  s.years = 0;
  CHECK_THROWS_WITH_AS(evaluate_cost(small_census(), s, half_busy()), doctest::Contains("cost.years"),
                       std::invalid_argument);
  // 2 GPUs of 500 W need a node of at least 1 kW.
  s = round_spec();
  s.node_watts = 900;
  CHECK_THROWS_WITH_AS(evaluate_cost(small_census(), s, half_busy()), doctest::Contains("cost.node_power"),
                       std::invalid_argument);
  // The fabric's switches need more ports than the priced switch has.
  Census wide = small_census();
  wide.fabric[0].most_ports = 6;
  s = round_spec();
  s.switch_name = "tiny";
  s.switch_radix = 4;
  CHECK_THROWS_WITH_AS(evaluate_cost(wide, s, half_busy()),
                       doctest::Contains("cost.switch: expected a switch with at least 6 ports (the fabric's leaf "
                                         "switches use that many), found tiny with 4"),
                       std::invalid_argument);
  s.switch_radix = 6;
  CHECK_NOTHROW(evaluate_cost(wide, s, half_busy()));
  Usage u = half_busy();
  u.gpus_used = 9;
  CHECK_THROWS_AS(evaluate_cost(small_census(), round_spec(), u), std::invalid_argument);
}
