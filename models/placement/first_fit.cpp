// First-fit: the lowest-numbered nodes with free GPUs, each giving all it has until the job has
// enough. Cheap and predictable; it leaves the high-numbered nodes whole.
#include <algorithm>

#include "models/placement/placement.hpp"

namespace fathom::place {

bool place_first_fit(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out) {
  if (gpus <= 0 || pool.total_free() < gpus) return false;
  std::int32_t left = gpus;
  for (std::int32_t node = 0; left > 0; ++node) {
    const std::int32_t take = std::min(pool.free(node), left);
    if (take > 0) out.push_back({node, take});
    left -= take;
  }
  return true;
}

}  // namespace fathom::place
