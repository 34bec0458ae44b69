// Random placement for GPU-sharing tasks: a node drawn uniformly among those that hold the task,
// and for a share a GPU drawn uniformly among the node's GPUs with room. The draws come from the
// policy's own stream (the seed), so a run is repeatable.
#include <vector>

#include "models/placement/share_placement.hpp"
#include "sim/random.hpp"

namespace fathom::place {

namespace {

class ShareRandom final : public SharePlacer {
 public:
  explicit ShareRandom(std::uint64_t seed) : rng_(seed, 0x5a4eULL) {}

  ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& d) override {
    candidates_.clear();
    for (std::int32_t n = 0; n < pool.nodes(); ++n) {
      if (pool.fits(n, d)) candidates_.push_back(n);
    }
    if (candidates_.empty()) return {};
    const std::int32_t n = candidates_[rng_.uniform_below(candidates_.size())];
    if (!d.is_share()) return {n, -1};
    candidates_.clear();
    const auto free = pool.gpu_free(n);
    for (std::int32_t g = 0; g < static_cast<std::int32_t>(free.size()); ++g) {
      if (free[g] >= d.gpu_milli) candidates_.push_back(g);
    }
    return {n, candidates_[rng_.uniform_below(candidates_.size())]};
  }

 private:
  sim::RandomStream rng_;
  std::vector<std::int32_t> candidates_;
};

}  // namespace

std::unique_ptr<SharePlacer> make_share_random(std::uint64_t seed) { return std::make_unique<ShareRandom>(seed); }

}  // namespace fathom::place
