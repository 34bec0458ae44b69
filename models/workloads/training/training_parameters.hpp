// The declared parameters of a training run (train::TrainingSpec's own scalars;
// models/params/parameter.hpp): the keys of a training scenario's `workload` beside `kind`,
// `model` and `parallel`.
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

// sequence and global_batch are required; every other key is optional_in_entry.
const std::vector<params::Parameter<TrainingSpec>>& training_parameters();

}  // namespace fathom::train
