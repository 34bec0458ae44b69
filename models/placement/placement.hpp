// Placement: which nodes' GPUs a job gets. One function per policy (a file each); all of them
// take whole GPUs and may spread a job over several nodes, so each places a job exactly when
// the pool has as many GPUs free as it asks for. They differ in which GPUs they leave free.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/placement/gpu_pool.hpp"

namespace fathom::place {

enum class PlacementPolicy {
  kFirstFit,       // nodes in order, each giving all it has free until the job has enough
  kBestFit,        // the node that the job (or what is left of it) fills most tightly; a job larger
                   // than any node's free GPUs takes the emptiest nodes first, so it spans the fewest
  kTopologyAware,  // the tightest node, else NVLink island, else leaf, else pod that holds the whole
                   // job; inside it (or, when none does, across the cluster) the emptiest groups
                   // first, each filled the same way: the job crosses as few spines as it can
};

std::string_view placement_name(PlacementPolicy policy);

// Appends the shares of a job of `gpus` GPUs to `out` and returns true, or returns false and
// leaves `out` as it was when the pool cannot hold it. The pool is not changed: the caller
// takes the shares.
bool place(PlacementPolicy policy, const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out);

bool place_first_fit(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out);
bool place_best_fit(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out);
bool place_topology_aware(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out);

}  // namespace fathom::place
