// A wafer-scale cluster priced and powered by the cost model (models/cost/cost_model.hpp,
// docs/cost.md): the systems are its nodes, one wafer each; SwarmX's nodes its fabric switches,
// level 1 its leaves and every level above its spines, with a cable from each system to its
// level-1 node and from each node to its parent; MemoryX an appliance at full load. A wafer's
// draw follows the step as a GPU's does: full power while it computes, cost.gpu_idle of it
// otherwise. docs/wafer.md, "Cost and power".
#pragma once

#include <optional>
#include <string>

#include "models/cost/cost_model.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"
#include "sim/errors.hpp"

namespace fathom::wafer {

// What the cost section adds for a wafer-scale cluster beside cost::CostSpec's keys.
struct WaferPrices {
  double memoryx_usd = 0;  // cost.memoryx_price
};

// The census the cost model prices: systems, SwarmX nodes by tier (level 1, then every level
// above as one tier) and the cables up to each.
cost::Census wafer_census(const WaferCluster& cluster);

// The first figure pricing needs that is 0 (Cerebras publishes none of them), or nullopt: the
// system's price (cost.node_price) and power (cost.node_power, by default cluster.system.power),
// a SwarmX node's price (cost.switch_price) and power (cost.switch_power, by default
// cluster.swarmx.power), MemoryX's price (cost.memoryx_price) and power (cluster.memoryx.power).
std::optional<sim::SpecViolation> cost_violation(const cost::CostSpec& spec, const WaferPrices& prices,
                                                 const WaferCluster& cluster);

// The cluster priced for `step` (its compute time over its step time is how busy the wafers are)
// and, with a token budget, for the run. Throws sim::SpecError for cost_violation().
cost::CostResult wafer_cost(const cost::CostSpec& spec, const WaferPrices& prices, const WaferCluster& cluster,
                            const WaferStep& step, double tokens);

}  // namespace fathom::wafer
