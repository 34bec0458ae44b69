#include "models/cost/cost_spec.hpp"

namespace fathom::cost {

using params::Quantity;

const std::vector<params::Parameter<CostSpec>>& cost_parameters() {
  static constexpr std::string_view kGpuIdleSource =
      "H100 SXM: about 70-76 W at idle (nvidia-smi) plus 26-50 W once a CUDA context is loaded (Vadari, "
      "arXiv:2605.23918, 2026), about 105 W of 700 W";
  static constexpr std::string_view kOpticsSource =
      "third-party 800G twin-port DR8/SR8 modules $1,100-1,400 at volume, vendor-branded 30-50% more (LuxOptX, "
      "2025): half, $625, per 400G port end; 17 W per twin-port module, 8-9 W per 400G NIC-side module (NVIDIA "
      "interconnect documentation): 8.5 W; MPO trunk fiber $50-150 (LuxOptX): $100";
  static constexpr std::string_view kRackSource =
      "NVIDIA DGX SuperPOD RA-11333-001 V11: four 10.2 kW DGX H100 per rack, 40.8 kW; no public rack price";
  static constexpr std::string_view kPueSource = "Uptime Institute Global Data Center Survey 2023: average PUE 1.58";
  static constexpr std::string_view kEnergySource =
      "US EIA, Electric Power Monthly: 2023 average industrial price 8.06 cents/kWh";
  static constexpr std::string_view kMaintenanceSource =
      "hardware support 10-15% of the purchase price per year, NVIDIA DGX support about 20% (trade press, low "
      "confidence; docs/cost.md)";
  static constexpr std::string_view kSpaceSource =
      "CBRE North America Data Center Trends H2 2024: average colocation asking rate $184.06 per kW-month "
      "(250-500 kW requirements)";
  static constexpr std::string_view kYearsSource =
      "5 years, the accelerator life Epoch AI assumes; hyperscalers depreciate servers over 5-6 years";
  static constexpr std::string_view kRentSource =
      "e.g. AWS p5.48xlarge (8 H100), July 2023: $12.29 per GPU-hour on demand, $5.40 with a 3-year reservation "
      "(The Next Platform); prices have since fallen (June 2025: up to 45% less)";
  static constexpr std::string_view kPriceList =
      "0: the price list's entry (scenarios/hardware/prices.yaml, docs/cost.md#the-price-list)";
  static const std::vector<params::Parameter<CostSpec>> declared = {
      {"node_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, node_usd),
       "a whole node as bought: accelerators, CPUs, memory, NICs, NVSwitches", kPriceList},
      {"node_power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(CostSpec, node_watts),
       "a node's power at full load (the datasheet's maximum)", kPriceList},
      {"gpu_idle", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(CostSpec, gpu_idle),
       "an accelerator's power when idle, as a fraction of its TDP (docs/cost.md#power)", kGpuIdleSource},
      {"switch_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, switch_usd), "one fabric switch", kPriceList},
      {"switch_power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(CostSpec, switch_watts),
       "one fabric switch without optics", "0: the switch catalog's `power` (scenarios/hardware/switches.yaml)"},
      {"nic_leaf.port_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, nic_leaf.port_usd),
       "NIC-leaf cables: per port end (a transceiver, or half a twin-port one)", kOpticsSource},
      {"nic_leaf.port_power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(CostSpec, nic_leaf.port_watts),
       "NIC-leaf cables: per port end", kOpticsSource},
      {"nic_leaf.cable_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, nic_leaf.cable_usd),
       "NIC-leaf cables: the fiber (or a whole copper cable)", kOpticsSource},
      {"leaf_spine.port_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, leaf_spine.port_usd),
       "leaf-spine cables: per port end", kOpticsSource},
      {"leaf_spine.port_power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(CostSpec, leaf_spine.port_watts),
       "leaf-spine cables: per port end", kOpticsSource},
      {"leaf_spine.cable_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, leaf_spine.cable_usd),
       "leaf-spine cables: the fiber", kOpticsSource},
      {"spine_core.port_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, spine_core.port_usd),
       "spine-core cables: per port end (single-mode reach)", kOpticsSource},
      {"spine_core.port_power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(CostSpec, spine_core.port_watts),
       "spine-core cables: per port end", kOpticsSource},
      {"spine_core.cable_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, spine_core.cable_usd),
       "spine-core cables: the fiber", kOpticsSource},
      {"rack_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, rack_usd),
       "one rack with its power distribution", kRackSource},
      {"rack_power",
       Quantity::kWatts,
       FATHOM_PARAMETER_MEMBER(CostSpec, rack_watts),
       "IT power one rack holds; racks = IT power at full load / this, rounded up",
       kRackSource,
       {},
       {},
       true},
      {"pue",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(CostSpec, pue),
       "power usage effectiveness: facility power over IT power",
       kPueSource,
       {},
       {},
       true},
      {"energy_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, usd_per_kwh), "per kWh of facility energy",
       kEnergySource},
      {"maintenance", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(CostSpec, maintenance),
       "hardware support and spares per year, as a fraction of capex", kMaintenanceSource},
      {"space_price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(CostSpec, usd_per_kw_month),
       "space and cooling (colocation), per kW of IT power per month", kSpaceSource},
      {"years",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(CostSpec, years),
       "amortisation period: capex is spread over it",
       kYearsSource,
       {},
       {},
       true},
      {"rent.on_demand", Quantity::kUsdPerHour, FATHOM_PARAMETER_MEMBER(CostSpec, on_demand_usd_per_gpu_hour),
       "renting instead: on-demand price per GPU-hour; 0: not compared", kRentSource},
      {"rent.reserved", Quantity::kUsdPerHour, FATHOM_PARAMETER_MEMBER(CostSpec, reserved_usd_per_gpu_hour),
       "renting instead: reserved (committed) price per GPU-hour; 0: not compared", kRentSource},
  };
  return declared;
}

}  // namespace fathom::cost
