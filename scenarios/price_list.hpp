// The price list: what a node or switch of the hardware catalog costs (and, for a node, draws at
// full load), each figure with its source and date. scenarios/hardware/prices.yaml, compiled in
// and parsed as strictly as a scenario. The cost model (`cost:`) takes its defaults from it;
// a scenario's `cost.node_price` and friends override it (docs/cost.md#the-price-list).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fathom::scenario {

inline constexpr std::string_view kPriceListFile = "<built-in>/scenarios/hardware/prices.yaml";

struct PriceEntry {
  std::string name;    // a node (nodes.yaml) or a switch (switches.yaml)
  double usd = 0;      // one unit as bought
  double watts = 0;    // nodes: power at full load; 0 for a switch (switches.yaml has it)
  std::string source;  // where each figure comes from, with its date
};

// scenarios/hardware/prices.yaml as compiled in.
std::string_view price_list_text();

// Every entry, in file order; parsed once. A malformed list throws ScenarioError located in it.
const std::vector<PriceEntry>& price_list();

// The entry named `name`, or nullptr.
const PriceEntry* find_price(std::string_view name);

}  // namespace fathom::scenario
