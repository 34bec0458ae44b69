#include "models/placement/replica_placement.hpp"

namespace fathom::place {

bool place_replica(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out) {
  if (gpus <= 0 || pool.total_free() < gpus) return false;
  if (gpus <= pool.largest_node()) {
    std::int32_t best = -1;
    for (std::int32_t node = 0; node < pool.nodes(); ++node) {
      const std::int32_t free = pool.free(node);
      if (free >= gpus && (best < 0 || free < pool.free(best))) best = node;
    }
    if (best < 0) return false;  // a replica that fits a node is never split across nodes
    out.push_back({best, gpus});
    return true;
  }
  std::vector<NodeShare> whole;
  std::int32_t left = gpus;
  for (std::int32_t node = 0; node < pool.nodes() && left > 0; ++node) {
    const std::int32_t capacity = pool.capacity(node);
    if (pool.free(node) != capacity || capacity > left) continue;
    whole.push_back({node, capacity});
    left -= capacity;
  }
  if (left != 0) return false;
  out.insert(out.end(), whole.begin(), whole.end());
  return true;
}

}  // namespace fathom::place
