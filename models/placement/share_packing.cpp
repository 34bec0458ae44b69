// Packing for GPU-sharing tasks ("GPU packing" in Weng et al.'s comparison): keep idle GPUs and
// idle nodes idle as long as possible. A share goes on a GPU already in use when one has room
// (the tightest), else on a node already in use, else on an idle node; whole GPUs go on the node
// with the fewest idle GPUs that still holds them, used nodes before idle ones.
#include <limits>
#include <tuple>

#include "models/placement/share_placement.hpp"

namespace fathom::place {

namespace {

class SharePacking final : public SharePlacer {
 public:
  ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& d) override {
    ShareChoice best;
    // (class, free thousandths of the chosen GPU or idle GPUs of the node): lowest wins.
    std::tuple<int, std::int64_t> best_key{std::numeric_limits<int>::max(), 0};
    for (std::int32_t n = 0; n < pool.nodes(); ++n) {
      if (!pool.fits(n, d)) continue;
      const bool node_in_use = pool.idle_gpus(n) < pool.spec(n).gpus || pool.cpu_free(n) < pool.spec(n).cpu_milli;
      std::tuple<int, std::int64_t> key;
      std::int32_t gpu = -1;
      if (d.is_share()) {
        gpu = tightest_gpu(pool, n, d.gpu_milli);
        const std::int32_t free = pool.gpu_free(n)[gpu];
        key = {free < 1000 ? 0 : node_in_use ? 1 : 2, free};
      } else {
        key = {node_in_use ? 1 : 2, pool.idle_gpus(n)};
      }
      if (key < best_key) {
        best_key = key;
        best = {n, gpu};
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<SharePlacer> make_share_packing() { return std::make_unique<SharePacking>(); }

}  // namespace fathom::place
