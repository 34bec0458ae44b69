#include "models/placement/share_placement.hpp"

namespace fathom::place {

std::string_view share_policy_name(SharePolicy policy) {
  switch (policy) {
    case SharePolicy::kFirstFit:
      return "first-fit";
    case SharePolicy::kBestFit:
      return "best-fit";
    case SharePolicy::kRandom:
      return "random";
    case SharePolicy::kPacking:
      return "packing";
    case SharePolicy::kFgd:
      return "fgd";
  }
  return "?";
}

std::unique_ptr<SharePlacer> make_share_placer(SharePolicy policy, const TaskMix& mix, std::uint64_t seed) {
  switch (policy) {
    case SharePolicy::kFirstFit:
      return make_share_first_fit();
    case SharePolicy::kBestFit:
      return make_share_best_fit();
    case SharePolicy::kRandom:
      return make_share_random(seed);
    case SharePolicy::kPacking:
      return make_share_packing();
    case SharePolicy::kFgd:
      return make_share_fgd(mix);
  }
  return nullptr;
}

std::int32_t tightest_gpu(const SharePool& pool, std::int32_t n, std::int32_t milli) {
  const auto free = pool.gpu_free(n);
  std::int32_t best = -1;
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(free.size()); ++g) {
    if (free[g] >= milli && (best < 0 || free[g] < free[best])) best = g;
  }
  return best;
}

}  // namespace fathom::place
