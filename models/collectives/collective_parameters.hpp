// The declared parameters of CollectiveParams (models/params/parameter.hpp): the keys of a
// scenario's and a calibrated profile's `collectives:` section.
#pragma once

#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/params/parameter.hpp"

namespace fathom::coll {

// In the order a calibrated profile writes the fitted ones.
const std::vector<params::Parameter<CollectiveParams>>& collective_parameters();

}  // namespace fathom::coll
