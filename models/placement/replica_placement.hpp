// Where an inference replica goes on a shared cluster. A replica's tensor- and pipeline-parallel
// ranks talk over NVLink every layer, so unlike a training job it is never split across partly
// used nodes: it takes GPUs of one node, or whole nodes when it is larger than a node.
#pragma once

#include <cstdint>
#include <vector>

#include "models/placement/gpu_pool.hpp"

namespace fathom::place {

// Appends a replica of `gpus` GPUs to `out` and returns true, or returns false and leaves `out`
// as it was. Up to a node's GPUs: the node whose free GPUs it fills most tightly (best fit, so
// that whole nodes stay whole; ties to the lowest number). More: the lowest-numbered wholly free
// nodes whose GPUs add up to exactly `gpus`. The pool is not changed.
bool place_replica(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out);

}  // namespace fathom::place
