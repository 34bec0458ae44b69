#include "scenarios/cost_reader.hpp"

#include "models/hardware/accelerator.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/price_list.hpp"

namespace fathom::scenario {

namespace {

// A price or power left at 0 takes the price list's figure for `name`, or is refused.
void from_price_list(MapReader& section, double& field, std::string_view key, const std::string& name, const char* what,
                     double PriceEntry::*figure) {
  if (field > 0) return;
  const PriceEntry* entry = name.empty() ? nullptr : find_price(name);
  if (entry != nullptr && entry->*figure > 0) {
    field = entry->*figure;
    return;
  }
  const std::string found = name.empty() ? "a node spelled out in full, which the price list cannot know"
                                         : "\"" + name + "\", which the price list (prices.yaml) does not list";
  throw ScenarioError(section.location(), section.path() + "." + std::string(key), what, found,
                      "set " + section.path() + "." + std::string(key));
}

}  // namespace

cost::CostSpec read_cost_section(MapReader& section, const std::string& node,
                                 const std::function<void(const ValueReader&)>& note) {
  cost::CostSpec spec;
  read_declared(section, cost::cost_parameters(), spec, note);
  hw::SwitchSpec fabric_switch;
  if (auto v = section.find("switch")) {
    note(*v);
    fabric_switch = catalog_switch(*v);
  } else {
    fabric_switch = *find_catalog_switch(spec.switch_name);
  }
  spec.switch_name = fabric_switch.name;
  spec.switch_radix = fabric_switch.radix;
  if (spec.switch_watts <= 0) spec.switch_watts = fabric_switch.watts;
  from_price_list(section, spec.node_usd, "node_price", node, "the price of one node", &PriceEntry::usd);
  from_price_list(section, spec.node_watts, "node_power", node, "the power of one node at full load",
                  &PriceEntry::watts);
  from_price_list(section, spec.switch_usd, "switch_price", spec.switch_name, "the price of one fabric switch",
                  &PriceEntry::usd);
  return spec;
}

}  // namespace fathom::scenario
