// The declared parameters (models/params/parameter.hpp) of weight-streaming training: the keys of
// a wafer-scale scenario's `workload` beside `kind` and `model` (docs/wafer.md).
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"

namespace fathom::wafer {

const std::vector<params::Parameter<WaferTrainingSpec>>& wafer_training_parameters();

}  // namespace fathom::wafer
