// The declared parameters of a training run's parallel strategy (train::ParallelSpec;
// models/params/parameter.hpp): the scalar keys of a training scenario's `workload.parallel`.
// The lists (stage_layers, chunk_layers, order) are read beside them.
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

const std::vector<params::Parameter<ParallelSpec>>& parallel_parameters();

}  // namespace fathom::train
