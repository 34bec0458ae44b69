#include "models/workloads/wafer/wafer_cost.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "topologies/swarmx_tree.hpp"

namespace fathom::wafer {

namespace {

// The bill in the wafer cluster's own words: the cost model's GPU-cluster items renamed.
void name_bill(cost::CostResult& r, const std::map<std::string, std::string>& names) {
  for (cost::CapexLine& line : r.capex) {
    if (auto it = names.find(line.item); it != names.end()) line.item = it->second;
  }
}

std::optional<sim::SpecViolation> system_violation(const cost::CostSpec& spec, const WaferCluster& cluster,
                                                   const std::string& hint) {
  using V = sim::SpecViolation;
  if (!(spec.node_usd > 0))
    return V{"cost.node_price", "the price of one " + cluster.system.name + " system", "0", hint};
  if (!(spec.node_watts > 0)) {
    return V{"cost.node_power", "the power of one " + cluster.system.name + " system (or cluster.system.power)", "0",
             hint};
  }
  return std::nullopt;
}

}  // namespace

cost::Census wafer_census(const WaferCluster& cluster) {
  cost::Census c;
  c.nodes = static_cast<std::size_t>(cluster.systems);
  c.gpus = c.nodes;
  c.nic_ports = c.nodes;
  // SwarmX level by level: every node's children are cables up to it.
  std::vector<std::size_t> levels;
  for (std::size_t below = c.nodes;;) {
    below = (below + static_cast<std::size_t>(cluster.swarmx.fan_out) - 1) /
            static_cast<std::size_t>(cluster.swarmx.fan_out);
    levels.push_back(below);
    if (below == 1) break;
  }
  cost::FabricTierCensus leaves;
  leaves.tier = 1;
  leaves.switches = levels.front();
  leaves.cables_down = leaves.ports_down = c.nodes;
  cost::FabricTierCensus upper;
  upper.tier = 2;
  for (std::size_t l = 1; l < levels.size(); ++l) {
    upper.switches += levels[l];
    upper.cables_down += levels[l - 1];
  }
  upper.ports_down = upper.cables_down;
  leaves.ports_up = levels.size() > 1 ? levels.front() : 0;
  c.fabric.push_back(leaves);
  if (upper.switches > 0) c.fabric.push_back(upper);
  return c;
}

std::optional<sim::SpecViolation> cost_violation(const cost::CostSpec& spec, const WaferPrices& prices,
                                                 const WaferCluster& cluster) {
  using V = sim::SpecViolation;
  const std::string hint = "Cerebras publishes no price or power for its systems: the scenario must supply it";
  if (auto v = system_violation(spec, cluster, hint)) return v;
  if (!(spec.switch_usd > 0)) return V{"cost.switch_price", "the price of one SwarmX node", "0", hint};
  if (!(spec.switch_watts > 0)) {
    return V{"cost.switch_power", "the power of one SwarmX node (or cluster.swarmx.power)", "0", hint};
  }
  if (!(prices.memoryx_usd > 0)) return V{"cost.memoryx_price", "the price of the MemoryX", "0", hint};
  if (!(cluster.memoryx.power_w > 0)) return V{"cluster.memoryx.power", "the MemoryX's power at full load", "0", hint};
  if (cluster.input_workers > 0 && !(prices.input_worker_usd > 0)) {
    return V{"cost.input_worker_price", "the price of one input worker", "0", hint};
  }
  if (cluster.input_workers > 0 && !(cluster.input_worker.power_w > 0)) {
    return V{"cluster.input_worker.power", "an input worker's power at full load", "0", hint};
  }
  return std::nullopt;
}

cost::CostResult wafer_cost(const cost::CostSpec& spec, const WaferPrices& prices, const WaferCluster& cluster,
                            const WaferStep& step, double tokens) {
  if (auto v = cost_violation(spec, prices, cluster)) throw sim::SpecError(*v);
  cost::Usage usage;
  usage.gpu_tdp_watts = spec.node_watts;
  usage.gpus_used = cluster.systems;
  usage.busy_fraction = step.step_s > 0 ? step.compute_s / step.step_s : 0;
  usage.step_seconds = step.step_s;
  usage.tokens_per_step = step.tokens_per_step;
  if (tokens > 0 && step.tokens_per_step > 0) usage.steps_per_run = tokens / step.tokens_per_step;
  usage.appliances.push_back({cluster.memoryx.name, 1, prices.memoryx_usd, cluster.memoryx.power_w});
  if (cluster.input_workers > 0) {
    usage.appliances.push_back({cluster.input_worker.name + " (input workers)",
                                static_cast<double>(cluster.input_workers), prices.input_worker_usd,
                                cluster.input_worker.power_w});
  }
  cost::CostResult r = cost::evaluate_cost(wafer_census(cluster), spec, usage);
  name_bill(r, {{"nodes", cluster.system.name + " systems"},
                {"leaf switches", "SwarmX nodes, level 1"},
                {"spine switches", "SwarmX nodes, levels above"},
                {"NIC-leaf port ends (optics)", "system-SwarmX port ends (optics)"},
                {"NIC-leaf cables", "system-SwarmX cables"},
                {"leaf-spine port ends (optics)", "SwarmX-SwarmX port ends (optics)"},
                {"leaf-spine cables", "SwarmX-SwarmX cables"}});
  return r;
}

int most_serving_systems(int ports, int radix) {
  if (ports < 1 || radix < 2) return 0;
  // Two tiers: `radix` leaves (a spine has a port for each), each with half its ports down.
  const long most = std::max<long>(radix, static_cast<long>(radix) * (radix / 2));
  return static_cast<int>(most / ports);
}

cost::Census wafer_serving_census(int systems, int ports, int radix) {
  if (systems < 1 || ports < 1 || radix < 2) {
    throw std::invalid_argument("wafer_serving_census: systems, ports and radix must be positive (radix at least 2)");
  }
  if (systems > most_serving_systems(ports, radix)) {
    throw std::invalid_argument("wafer_serving_census: " + std::to_string(systems) +
                                " systems are more than two tiers of " + std::to_string(radix) +
                                "-port switches connect");
  }
  const auto p = static_cast<std::size_t>(systems) * static_cast<std::size_t>(ports);
  const auto r = static_cast<std::size_t>(radix);
  cost::Census c;
  c.nodes = c.gpus = static_cast<std::size_t>(systems);
  c.nic_ports = p;
  cost::FabricTierCensus leaves;
  leaves.tier = 1;
  leaves.cables_down = leaves.ports_down = p;
  if (p <= r) {
    leaves.switches = 1;
    leaves.most_ports = p;
    c.fabric.push_back(leaves);
    return c;
  }
  const std::size_t down = r / 2;
  leaves.switches = (p + down - 1) / down;
  leaves.ports_up = p;
  leaves.most_ports = 2 * down;
  cost::FabricTierCensus spines;
  spines.tier = 2;
  spines.cables_down = spines.ports_down = p;
  spines.switches = (p + r - 1) / r;
  spines.most_ports = std::min(p, r);
  c.fabric = {leaves, spines};
  return c;
}

std::optional<sim::SpecViolation> serving_cost_violation(const cost::CostSpec& spec, const WaferPrices& prices,
                                                         const WaferCluster& cluster) {
  using V = sim::SpecViolation;
  if (auto v = system_violation(spec, cluster,
                                "Cerebras publishes no price or power for its systems: the scenario must supply it"))
    return v;
  if (!(spec.switch_usd > 0)) {
    return V{"cost.switch_price", "the price of one " + spec.switch_name + " switch", "0",
             "the price list has none for it: set cost.switch_price"};
  }
  if (!(spec.switch_watts > 0)) return V{"cost.switch_power", "the power of one " + spec.switch_name, "0"};
  const int most = most_serving_systems(prices.system_ports, spec.switch_radix);
  if (cluster.systems > most) {
    return V{"cluster.systems",
             "at most " + std::to_string(most) + " systems: two tiers of " + spec.switch_name + " (" +
                 std::to_string(spec.switch_radix) + " ports) with " + std::to_string(prices.system_ports) +
                 " ports a system",
             std::to_string(cluster.systems), "a switch with more ports (cost.switch)"};
  }
  return std::nullopt;
}

cost::CostResult wafer_serving_cost(const cost::CostSpec& spec, const WaferPrices& prices, const WaferCluster& cluster,
                                    cost::Usage usage) {
  if (auto v = serving_cost_violation(spec, prices, cluster)) throw sim::SpecError(*v);
  usage.gpu_tdp_watts = spec.node_watts;
  cost::CostResult r =
      cost::evaluate_cost(wafer_serving_census(cluster.systems, prices.system_ports, spec.switch_radix), spec, usage);
  name_bill(r, {{"nodes", cluster.system.name + " systems"},
                {"NIC-leaf port ends (optics)", "system-leaf port ends (optics)"},
                {"NIC-leaf cables", "system-leaf cables"}});
  return r;
}

}  // namespace fathom::wafer
