// The cost model (docs/cost.md): a cluster's capex from its census and a price list, its power
// from component power with the accelerators' draw scaled by how busy the simulated step kept
// them, its operating cost per year, the total over the amortisation period, and what a
// training step and run cost, owned or rented.
#pragma once

#include <string>
#include <vector>

#include "models/cost/census.hpp"
#include "models/cost/cost_spec.hpp"

namespace fathom::cost {

// One line of the bill: what, how many, at what unit price.
struct CapexLine {
  std::string item;  // "nodes", "leaf switches", "leaf-spine optics", ...
  double count = 0;
  double unit_usd = 0;
  double usd() const { return count * unit_usd; }
};

// Equipment beside the nodes and the fabric, bought and powered at full load whatever the
// workload does (a wafer-scale cluster's MemoryX).
struct Appliance {
  std::string item;
  double count = 0;
  double usd = 0;    // each
  double watts = 0;  // each, at full load
};

// What a workload contributes: its accelerators' power and the time they are busy.
struct Usage {
  double gpu_tdp_watts = 0;  // one accelerator's TDP
  double gpus_used = 0;      // accelerators the workload runs on
  double busy_fraction = 0;  // of the step, averaged over the workload's accelerators: computing
  double step_seconds = 0;   // 0: no step (no per-step figures)
  double tokens_per_step = 0;
  double steps_per_run = 0;  // 0: no run length (no per-run figures)
  // A whole run's: nodes kept beside the cluster as spares (bought, racked and idle until one
  // replaces a failed node), and what its storage tiers cost over the run.
  double spare_nodes = 0;
  double storage_usd_per_run = 0;
  std::vector<Appliance> appliances;  // priced after the fabric, powered at full load
};

struct CostResult {
  std::vector<CapexLine> capex;  // in bill order
  std::size_t racks = 0;
  double capex_usd = 0;
  // Power
  double power_w_it = 0;        // at the workload's utilisation
  double power_w_it_peak = 0;   // every accelerator at TDP (what the racks and feeds are sized for)
  double power_w_facility = 0;  // IT x PUE
  // Operating cost per year, by item
  double energy_usd_per_year = 0;
  double maintenance_usd_per_year = 0;
  double space_usd_per_year = 0;
  double opex_usd_per_year = 0;
  double tco_usd = 0;           // capex + years x opex
  double usd_per_gpu_hour = 0;  // TCO over every GPU-hour of the amortisation period
  // Per step and per run (0 when the usage gives no step or run)
  double energy_kwh_per_step = 0;
  double usd_per_step = 0;
  double usd_per_run = 0;
  double usd_per_million_tokens = 0;
  double on_demand_usd_per_run = 0;  // 0 when not compared
  double reserved_usd_per_run = 0;
  double storage_usd_per_run = 0;  // included in the three per-run figures
};

// Prices `census` with `spec` (every price and power filled in: see cost_spec.hpp) for a cluster
// of accelerators of TDP usage.gpu_tdp_watts. Throws std::invalid_argument for a spec that cannot
// price it (a PUE below 1, no amortisation years).
CostResult evaluate_cost(const Census& census, const CostSpec& spec, const Usage& usage);

// The hours in a year: 365.25 days.
inline constexpr double kHoursPerYear = 8766;

}  // namespace fathom::cost
