// The declared parameters of a node (topo::NodeSpec; models/params/parameter.hpp): the keys of
// a scenario's `cluster.node` mapping and of a node catalog entry.
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::hw {

const std::vector<params::Parameter<topo::NodeSpec>>& node_parameters();

}  // namespace fathom::hw
