#include "models/cost/cost_model.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fathom::cost {

namespace {

const char* tier_switch_name(int tier) {
  switch (tier) {
    case 1:
      return "leaf switches";
    case 2:
      return "spine switches";
    default:
      return "core switches";
  }
}

// The cables whose upper end is at `tier`, by reach: tier 1 from the NICs, 2 leaf-spine, 3 spine-core.
const char* cabling_name(int tier) {
  switch (tier) {
    case 1:
      return "NIC-leaf";
    case 2:
      return "leaf-spine";
    default:
      return "spine-core";
  }
}

const CablingCost& cabling_of(const CostSpec& spec, int tier) {
  return tier == 1 ? spec.nic_leaf : tier == 2 ? spec.leaf_spine : spec.spine_core;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

CostResult evaluate_cost(const Census& census, const CostSpec& spec, const Usage& usage) {
  require(spec.pue >= 1, "cost.pue: expected a ratio of at least 1 (facility power includes the IT power), found " +
                             std::to_string(spec.pue));
  require(spec.years > 0, "cost.years: expected an amortisation period above 0 years, found 0");
  require(usage.gpus_used <= static_cast<double>(census.gpus),
          "workload.gpus: expected at most the cluster's " + std::to_string(census.gpus) + " GPUs, found " +
              std::to_string(static_cast<long long>(usage.gpus_used)));
  const double gpus = static_cast<double>(census.gpus);
  const double nodes = static_cast<double>(census.nodes);
  if (census.nodes > 0) {
    const double node_gpu_watts = gpus / nodes * usage.gpu_tdp_watts;
    require(spec.node_watts >= node_gpu_watts, "cost.node_power: expected at least the node's accelerators' TDP (" +
                                                   std::to_string(node_gpu_watts) + " W), found " +
                                                   std::to_string(spec.node_watts) + " W");
  }

  for (const FabricTierCensus& t : census.fabric) {
    require(spec.switch_radix <= 0 || t.most_ports <= static_cast<std::size_t>(spec.switch_radix),
            "cost.switch: expected a switch with at least " + std::to_string(t.most_ports) + " ports (the fabric's " +
                tier_switch_name(t.tier) + " use that many), found " + spec.switch_name + " with " +
                std::to_string(spec.switch_radix) + "; set cluster.fabric.radix to build the fabric from it");
  }

  CostResult r;
  r.capex.push_back({"nodes", nodes, spec.node_usd});
  if (usage.spare_nodes > 0) r.capex.push_back({"spare nodes", usage.spare_nodes, spec.node_usd});
  double switches = 0;
  double port_watts = 0;
  for (const FabricTierCensus& t : census.fabric) {
    switches += static_cast<double>(t.switches);
    r.capex.push_back({tier_switch_name(t.tier), static_cast<double>(t.switches), spec.switch_usd});
  }
  for (const FabricTierCensus& t : census.fabric) {
    const CablingCost& c = cabling_of(spec, t.tier);
    const double cables = static_cast<double>(t.cables_down);
    const std::string name = cabling_name(t.tier);
    r.capex.push_back({name + " port ends (optics)", 2 * cables, c.port_usd});
    r.capex.push_back({name + " cables", cables, c.cable_usd});
    port_watts += 2 * cables * c.port_watts;
  }

  double appliance_watts = 0;
  for (const Appliance& a : usage.appliances) {
    r.capex.push_back({a.item, a.count, a.usd});
    appliance_watts += a.count * a.watts;
  }

  // Power. A node at full load draws node_watts; an accelerator's dynamic share, TDP x (1 - idle),
  // scales with the fraction of the step it computes. Accelerators the workload leaves unused idle.
  const double dynamic_watts = usage.gpu_tdp_watts * (1 - spec.gpu_idle);
  const double unused_gpus = gpus - usage.gpus_used;
  const double fabric_watts = switches * spec.switch_watts + port_watts;
  // Spares are racked for full load (one may replace a failed node) and idle meanwhile.
  const double spare_gpus = nodes > 0 ? usage.spare_nodes * gpus / nodes : 0;
  r.power_w_it_peak = (nodes + usage.spare_nodes) * spec.node_watts + fabric_watts + appliance_watts;
  r.power_w_it =
      r.power_w_it_peak - dynamic_watts * (usage.gpus_used * (1 - usage.busy_fraction) + unused_gpus + spare_gpus);
  r.power_w_facility = r.power_w_it * spec.pue;

  if (spec.rack_watts > 0) {
    r.racks = static_cast<std::size_t>(std::ceil(r.power_w_it_peak / spec.rack_watts - 1e-9));
    r.capex.push_back({"racks", static_cast<double>(r.racks), spec.rack_usd});
  }
  for (const CapexLine& line : r.capex) r.capex_usd += line.usd();

  r.energy_usd_per_year = r.power_w_facility / 1e3 * kHoursPerYear * spec.usd_per_kwh;
  r.maintenance_usd_per_year = spec.maintenance * r.capex_usd;
  // Colocation is contracted per kW of IT capacity: the peak, not the average.
  r.space_usd_per_year = spec.usd_per_kw_month * 12 * r.power_w_it_peak / 1e3;
  r.opex_usd_per_year = r.energy_usd_per_year + r.maintenance_usd_per_year + r.space_usd_per_year;
  r.tco_usd = r.capex_usd + spec.years * r.opex_usd_per_year;
  if (gpus > 0) r.usd_per_gpu_hour = r.tco_usd / (gpus * spec.years * kHoursPerYear);

  if (usage.step_seconds > 0 && gpus > 0) {
    // The workload's share of the cluster: its GPUs' share of the cost and of the energy.
    const double share = usage.gpus_used / gpus;
    r.energy_kwh_per_step = r.power_w_facility * share * usage.step_seconds / 3.6e6;
    r.usd_per_step = r.usd_per_gpu_hour * usage.gpus_used * usage.step_seconds / 3600;
    if (usage.tokens_per_step > 0) r.usd_per_million_tokens = r.usd_per_step / usage.tokens_per_step * 1e6;
    if (usage.steps_per_run > 0) {
      const double gpu_hours = usage.gpus_used * usage.step_seconds * usage.steps_per_run / 3600;
      r.storage_usd_per_run = usage.storage_usd_per_run;
      r.usd_per_run = r.usd_per_step * usage.steps_per_run + r.storage_usd_per_run;
      if (spec.on_demand_usd_per_gpu_hour > 0) {
        r.on_demand_usd_per_run = spec.on_demand_usd_per_gpu_hour * gpu_hours + r.storage_usd_per_run;
      }
      if (spec.reserved_usd_per_gpu_hour > 0) {
        r.reserved_usd_per_run = spec.reserved_usd_per_gpu_hour * gpu_hours + r.storage_usd_per_run;
      }
    }
  }
  return r;
}

}  // namespace fathom::cost
