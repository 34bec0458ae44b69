#include "models/workloads/wafer/wafer_cost.hpp"

#include <map>

#include "topologies/swarmx_tree.hpp"

namespace fathom::wafer {

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
  if (!(spec.node_usd > 0))
    return V{"cost.node_price", "the price of one " + cluster.system.name + " system", "0", hint};
  if (!(spec.node_watts > 0)) {
    return V{"cost.node_power", "the power of one " + cluster.system.name + " system (or cluster.system.power)", "0",
             hint};
  }
  if (!(spec.switch_usd > 0)) return V{"cost.switch_price", "the price of one SwarmX node", "0", hint};
  if (!(spec.switch_watts > 0)) {
    return V{"cost.switch_power", "the power of one SwarmX node (or cluster.swarmx.power)", "0", hint};
  }
  if (!(prices.memoryx_usd > 0)) return V{"cost.memoryx_price", "the price of the MemoryX", "0", hint};
  if (!(cluster.memoryx.power_w > 0)) return V{"cluster.memoryx.power", "the MemoryX's power at full load", "0", hint};
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
  cost::CostResult r = cost::evaluate_cost(wafer_census(cluster), spec, usage);
  // The bill in the wafer cluster's own words.
  const std::map<std::string, std::string> names = {
      {"nodes", cluster.system.name + " systems"},
      {"leaf switches", "SwarmX nodes, level 1"},
      {"spine switches", "SwarmX nodes, levels above"},
      {"NIC-leaf port ends (optics)", "system-SwarmX port ends (optics)"},
      {"NIC-leaf cables", "system-SwarmX cables"},
      {"leaf-spine port ends (optics)", "SwarmX-SwarmX port ends (optics)"},
      {"leaf-spine cables", "SwarmX-SwarmX cables"}};
  for (cost::CapexLine& line : r.capex) {
    if (auto it = names.find(line.item); it != names.end()) line.item = it->second;
  }
  return r;
}

}  // namespace fathom::wafer
