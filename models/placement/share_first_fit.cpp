// First-fit for GPU-sharing tasks: the lowest-numbered node that holds the task; a share on the
// node's first GPU with room.
#include "models/placement/share_placement.hpp"

namespace fathom::place {

namespace {

class ShareFirstFit final : public SharePlacer {
 public:
  ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& d) override {
    for (std::int32_t n = 0; n < pool.nodes(); ++n) {
      if (!pool.fits(n, d)) continue;
      if (!d.is_share()) return {n, -1};
      const auto free = pool.gpu_free(n);
      for (std::int32_t g = 0;; ++g) {
        if (free[g] >= d.gpu_milli) return {n, g};
      }
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<SharePlacer> make_share_first_fit() { return std::make_unique<ShareFirstFit>(); }

}  // namespace fathom::place
