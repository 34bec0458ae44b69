// The declared parameters of the scale-out fabric (topo::FabricSpec; models/params/parameter.hpp):
// the scalar keys of a scenario's `cluster.fabric`. The per-tier `links` list is read beside them.
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::net {

const std::vector<params::Parameter<topo::FabricSpec>>& fabric_parameters();

}  // namespace fathom::net
