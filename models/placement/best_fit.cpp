// Best-fit: the node whose free GPUs the job fills most tightly, so that the nodes left free stay
// whole for the jobs that need whole nodes. A job no single node can hold takes the node with the
// most GPUs free, then places what is left the same way: it spans as few nodes as it can.
// Ties go to the lowest-numbered node, so the choice is deterministic.
#include <algorithm>

#include "models/placement/placement.hpp"

namespace fathom::place {

bool place_best_fit(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out) {
  if (gpus <= 0 || pool.total_free() < gpus) return false;
  // Nodes with GPUs free, emptiest first (lowest number first among equals).
  std::vector<NodeShare> open;
  for (std::int32_t node = 0; node < pool.nodes(); ++node) {
    if (pool.free(node) > 0) open.push_back({node, pool.free(node)});
  }
  std::sort(open.begin(), open.end(), [](const NodeShare& a, const NodeShare& b) {
    return a.gpus != b.gpus ? a.gpus > b.gpus : a.node < b.node;
  });
  std::int32_t left = gpus;
  for (std::size_t i = 0; left > 0; ++i) {
    if (open[i].gpus >= left) {
      // The untaken nodes are open[i..], emptiest first: the tightest that holds `left` is the
      // first of the run of the smallest free count that is still >= left.
      std::size_t j = i;
      while (j + 1 < open.size() && open[j + 1].gpus >= left) ++j;
      while (j > i && open[j - 1].gpus == open[j].gpus) --j;
      out.push_back({open[j].node, left});
      return true;
    }
    out.push_back(open[i]);
    left -= open[i].gpus;
  }
  return true;
}

}  // namespace fathom::place
