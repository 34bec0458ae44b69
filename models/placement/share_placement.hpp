// Placement of GPU-sharing tasks (share_pool.hpp): which node, and for a share which GPU. One
// policy per file, after the policies "Beware of Fragmentation" (Weng et al., USENIX ATC'23)
// compares:
//   first-fit  the lowest-numbered node that holds the task; a share on its first GPU with room
//   best-fit   the node left with the fewest free GPU thousandths (then CPU); a share on the
//              tightest GPU
//   random     a node drawn uniformly among those that hold it (and a GPU among those with room)
//   packing    a share on a GPU already in use (tightest first), else on a node already in use,
//              else on an idle node; whole GPUs on the node with the fewest idle GPUs that hold them
//   fgd        fragmentation gradient descent: the node and GPU whose fragmentation against the
//              expected task mix grows least
// Every policy places a task exactly when some node can hold it; ties go to the lowest-numbered
// node, then GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "models/placement/share_pool.hpp"

namespace fathom::place {

enum class SharePolicy { kFirstFit, kBestFit, kRandom, kPacking, kFgd };

std::string_view share_policy_name(SharePolicy policy);

struct ShareChoice {
  std::int32_t node = -1;  // -1: no node can hold the task
  std::int32_t gpu = -1;   // for a share, the GPU; -1 otherwise
};

class SharePlacer {
 public:
  virtual ~SharePlacer() = default;
  virtual ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& demand) = 0;
};

// `mix` is what fgd measures fragmentation against; `seed` drives random.
std::unique_ptr<SharePlacer> make_share_placer(SharePolicy policy, const TaskMix& mix, std::uint64_t seed);

std::unique_ptr<SharePlacer> make_share_first_fit();
std::unique_ptr<SharePlacer> make_share_best_fit();
std::unique_ptr<SharePlacer> make_share_random(std::uint64_t seed);
std::unique_ptr<SharePlacer> make_share_packing();
std::unique_ptr<SharePlacer> make_share_fgd(const TaskMix& mix);

// The tightest GPU of node n with room for the share (least free, lowest number on ties).
std::int32_t tightest_gpu(const SharePool& pool, std::int32_t n, std::int32_t milli);

}  // namespace fathom::place
