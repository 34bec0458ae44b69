// The declared parameters (models/params/parameter.hpp) of a wafer-scale cluster's parts: the
// keys of a catalog entry in scenarios/hardware/wafer.yaml and of a scenario's
// `cluster.system`, `cluster.memoryx` and `cluster.swarmx` (docs/wafer.md).
#pragma once

#include <vector>

#include "models/hardware/wafer_system.hpp"
#include "models/params/parameter.hpp"

namespace fathom::hw {

const std::vector<params::Parameter<WaferSystemSpec>>& wafer_system_parameters();
const std::vector<params::Parameter<MemoryXSpec>>& memoryx_parameters();
const std::vector<params::Parameter<SwarmXSpec>>& swarmx_parameters();

}  // namespace fathom::hw
