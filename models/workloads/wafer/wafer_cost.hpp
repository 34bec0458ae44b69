// A wafer-scale cluster priced and powered by the cost model (models/cost/cost_model.hpp,
// docs/cost.md). Training: the systems are its nodes, one wafer each; SwarmX's nodes its fabric switches,
// level 1 its leaves and every level above its spines, with a cable from each system to its
// level-1 node and from each node to its parent; MemoryX an appliance at full load. A wafer's
// draw follows the step as a GPU's does: full power while it computes, cost.gpu_idle of it
// otherwise. Serving: the systems and the Ethernet fabric between them (below). docs/wafer.md,
// "Cost and power".
#pragma once

#include <optional>
#include <string>

#include "models/cost/cost_model.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"
#include "sim/errors.hpp"

namespace fathom::wafer {

// What the cost section adds for a wafer-scale cluster beside cost::CostSpec's keys.
struct WaferPrices {
  double memoryx_usd = 0;       // cost.memoryx_price (training)
  double input_worker_usd = 0;  // cost.input_worker_price (training with cluster.input_workers)
  // Serving: the switch ports one system's I/O takes on the serving fabric, its I/O rate over
  // cost.switch's port rate, rounded up.
  int system_ports = 0;
};

// The census the cost model prices: systems, SwarmX nodes by tier (level 1, then every level
// above as one tier) and the cables up to each.
cost::Census wafer_census(const WaferCluster& cluster);

// The first figure pricing needs that is 0 (Cerebras publishes none of them), or nullopt: the
// system's price (cost.node_price) and power (cost.node_power, by default cluster.system.power),
// a SwarmX node's price (cost.switch_price) and power (cost.switch_power, by default
// cluster.swarmx.power), MemoryX's price (cost.memoryx_price) and power (cluster.memoryx.power),
// and with input workers theirs (cost.input_worker_price, cluster.input_worker.power).
std::optional<sim::SpecViolation> cost_violation(const cost::CostSpec& spec, const WaferPrices& prices,
                                                 const WaferCluster& cluster);

// The cluster priced for `step` (its compute time over its step time is how busy the wafers are)
// and, with a token budget, for the run. Throws sim::SpecError for cost_violation().
cost::CostResult wafer_cost(const cost::CostSpec& spec, const WaferPrices& prices, const WaferCluster& cluster,
                            const WaferStep& step, double tokens);

// A service on wafers holds its weights in SRAM: no MemoryX and no SwarmX. Its systems reach each
// other (a replica's pipeline stages and tensor-parallel wafers) through an Ethernet fabric of
// `radix`-port switches (cost.switch), each system cabling `ports` ports: one switch when they
// fit, else two tiers, each leaf with half its ports down to systems and half up to the spines
// (non-blocking, as a leaf-spine fabric is built), at most `radix` leaves. Throws
// std::invalid_argument for more systems than two tiers connect, or ports or radix below 1.
cost::Census wafer_serving_census(int systems, int ports, int radix);

// The most systems wafer_serving_census connects with `ports` each on `radix`-port switches.
int most_serving_systems(int ports, int radix);

// The first figure pricing a service on wafers needs that is 0, or a fabric too large for two
// tiers: the system's price and power, the switch's price and power.
std::optional<sim::SpecViolation> serving_cost_violation(const cost::CostSpec& spec, const WaferPrices& prices,
                                                         const WaferCluster& cluster);

// A service on wafers priced for `usage` (what the inference report gives the cost model: the
// wafers it ran on, how busy they were, the span it simulated and the tokens it generated), the
// systems drawing cost.node_power. Throws sim::SpecError for serving_cost_violation().
cost::CostResult wafer_serving_cost(const cost::CostSpec& spec, const WaferPrices& prices, const WaferCluster& cluster,
                                    cost::Usage usage);

}  // namespace fathom::wafer
