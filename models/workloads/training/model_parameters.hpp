// The declared parameters of a transformer's shape (train::TransformerSpec;
// models/params/parameter.hpp): the keys of a model zoo entry and of a scenario's
// `workload.model` mapping.
#pragma once

#include <vector>

#include "models/params/parameter.hpp"
#include "models/workloads/training/transformer.hpp"

namespace fathom::train {

const std::vector<params::Parameter<TransformerSpec>>& model_parameters();

}  // namespace fathom::train
