// The scenario's `cost:` section (docs/cost.md): the declared keys over their defaults, the
// fabric's `switch`, and the node's and switch's prices and power from the price list where the
// section does not give them.
#pragma once

#include <functional>
#include <string>

#include "models/cost/cost_spec.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// `node` is the hardware catalog's name for the cluster's node (or its `base:`), empty for a node
// spelled out in full; a price the section leaves to the price list that the list does not have
// is a ScenarioError at the section, naming the key to set. `note` is called with every value read.
cost::CostSpec read_cost_section(MapReader& section, const std::string& node,
                                 const std::function<void(const ValueReader&)>& note);

}  // namespace fathom::scenario
