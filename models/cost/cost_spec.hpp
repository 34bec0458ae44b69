// What a cluster's parts cost and draw, and what running it costs: the scenario's `cost:`
// section (docs/cost.md). Prices in US dollars, power in watts, every field SI. A price or
// power of 0 on a node or switch means "the price list's entry" (scenarios/hardware/prices.yaml)
// for the scenario's node and `cost.switch`; the loader fills them in, or refuses the scenario
// naming the key to set.
#pragma once

#include <string>
#include <vector>

#include "models/params/parameter.hpp"

namespace fathom::cost {

// One fabric tier's cabling: each cable has two port ends (a transceiver, or half of a
// twin-port one, on a switch; a single-port one on a NIC) and the cable or fiber between them.
// Defaults: NDR-class optics (docs/cost.md#the-price-list has the sources): half of an 800G
// twin-port OSFP module per switch port end, a single-port 400G module per NIC end, an MPO fiber.
struct CablingCost {
  double port_usd = 625;    // per port end (optics; 0 for copper)
  double port_watts = 8.5;  // per port end
  double cable_usd = 100;   // per cable (fiber, or a whole copper cable)
};

struct CostSpec {
  // Hardware
  double node_usd = 0;                           // a whole node as bought (GPUs, CPUs, NICs, NVSwitches)
  double node_watts = 0;                         // a node's power at full load
  double gpu_idle = 0.15;                        // an accelerator's power at idle, as a fraction of its TDP
  std::string switch_name = "quantum-2-qm9700";  // every fabric tier's switch (switches.yaml)
  int switch_radix = 0;                          // its ports; 0: not checked
  double switch_usd = 0;
  double switch_watts = 0;  // without optics
  CablingCost nic_leaf;
  CablingCost leaf_spine;
  CablingCost spine_core;
  double rack_usd = 0;        // per rack, with its power distribution (no public price: 0 unless set)
  double rack_watts = 40800;  // IT power one rack holds (the rack count is the IT power over it)
  // Operating
  double pue = 1.58;                 // facility power over IT power
  double usd_per_kwh = 0.0806;       // energy price
  double maintenance = 0.15;         // per year, as a fraction of capex
  double usd_per_kw_month = 184.06;  // space and cooling (colocation), per kW of IT power
  double years = 5;                  // amortisation period
  // Renting instead of buying, per GPU-hour; 0: not compared
  double on_demand_usd_per_gpu_hour = 0;
  double reserved_usd_per_gpu_hour = 0;
};

// The declared keys of `cost:` (docs/parameters.md); `switch` is read beside them.
const std::vector<params::Parameter<CostSpec>>& cost_parameters();

}  // namespace fathom::cost
