// Best-fit for GPU-sharing tasks: the node that the task leaves with the fewest free GPU
// thousandths, then the fewest free CPU thousandths; a share on that node's tightest GPU.
#include <limits>
#include <utility>

#include "models/placement/share_placement.hpp"

namespace fathom::place {

namespace {

class ShareBestFit final : public SharePlacer {
 public:
  ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& d) override {
    ShareChoice best;
    std::pair<std::int64_t, std::int64_t> best_left{std::numeric_limits<std::int64_t>::max(), 0};
    for (std::int32_t n = 0; n < pool.nodes(); ++n) {
      if (!pool.fits(n, d)) continue;
      std::int64_t gpu_left = -d.gpu_demand_milli();
      for (const std::int32_t f : pool.gpu_free(n)) gpu_left += f;
      const std::pair<std::int64_t, std::int64_t> left{gpu_left, pool.cpu_free(n) - d.cpu_milli};
      if (left < best_left) {
        best_left = left;
        best = {n, d.is_share() ? tightest_gpu(pool, n, d.gpu_milli) : -1};
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<SharePlacer> make_share_best_fit() { return std::make_unique<ShareBestFit>(); }

}  // namespace fathom::place
