// The declared parameters (models/params/parameter.hpp) of a wafer-scale cluster's parts: the
// keys of a catalog entry in scenarios/hardware/wafer.yaml and of a scenario's
// `cluster.system`, `cluster.memoryx`, `cluster.swarmx` and `cluster.input_worker` (docs/wafer.md).
#pragma once

#include <vector>

#include "models/hardware/wafer_system.hpp"
#include "models/params/parameter.hpp"

namespace fathom::hw {

const std::vector<params::Parameter<WaferSystemSpec>>& wafer_system_parameters();
const std::vector<params::Parameter<MemoryXSpec>>& memoryx_parameters();
const std::vector<params::Parameter<SwarmXSpec>>& swarmx_parameters();
const std::vector<params::Parameter<InputWorkerSpec>>& input_worker_parameters();

}  // namespace fathom::hw
