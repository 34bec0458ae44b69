// Fragmentation gradient descent (Weng et al., "Beware of Fragmentation", USENIX ATC'23): place
// the task where the node's fragmentation against the expected task mix (SharePool::fragmentation)
// grows least. Every node that holds the task is a candidate, and for a share every GPU with room
// (GPUs with the same free part give the same node state, so the lowest-numbered stands for them).
//
// A node's fragmentation depends only on its free CPU, free memory and the multiset of its GPUs'
// free parts, and thousands of nodes share a few such states (every idle node of one kind, say):
// each state's fragmentation is computed once and remembered.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/placement/share_placement.hpp"

namespace fathom::place {

namespace {

class ShareFgd final : public SharePlacer {
 public:
  explicit ShareFgd(TaskMix mix) : mix_(std::move(mix)) {}

  ShareChoice choose(const SharePool& pool, const jobs::ShareDemand& d) override {
    ShareChoice best;
    double best_delta = std::numeric_limits<double>::infinity();
    for (std::int32_t n = 0; n < pool.nodes(); ++n) {
      if (!pool.fits(n, d)) continue;
      const auto free = pool.gpu_free(n);
      const std::int64_t cpu = pool.cpu_free(n) - d.cpu_milli, memory = pool.memory_free(n) - d.memory_mib;
      const double before = fragmentation(pool.cpu_free(n), pool.memory_free(n), free);
      const auto consider = [&](std::int32_t gpu, const std::vector<std::int32_t>& after) {
        const double delta = fragmentation(cpu, memory, after) - before;
        if (delta < best_delta) {
          best_delta = delta;
          best = {n, gpu};
        }
      };
      after_.assign(free.begin(), free.end());
      if (d.is_share()) {
        for (std::int32_t g = 0; g < static_cast<std::int32_t>(free.size()); ++g) {
          if (free[g] < d.gpu_milli || std::find(free.begin(), free.begin() + g, free[g]) != free.begin() + g) continue;
          after_[static_cast<std::size_t>(g)] -= d.gpu_milli;
          consider(g, after_);
          after_[static_cast<std::size_t>(g)] += d.gpu_milli;
        }
      } else {
        std::int32_t left = d.gpus;
        for (std::size_t g = 0; left > 0; ++g) {
          if (after_[g] == 1000) {
            after_[g] = 0;
            --left;
          }
        }
        consider(-1, after_);
      }
    }
    return best;
  }

 private:
  double fragmentation(std::int64_t cpu, std::int64_t memory, std::span<const std::int32_t> free) {
    sorted_.assign(free.begin(), free.end());
    std::sort(sorted_.begin(), sorted_.end());
    key_.resize(2 * sizeof(std::int64_t) + sorted_.size() * sizeof(std::int32_t));
    std::memcpy(key_.data(), &cpu, sizeof cpu);
    std::memcpy(key_.data() + sizeof cpu, &memory, sizeof memory);
    std::memcpy(key_.data() + 2 * sizeof cpu, sorted_.data(), sorted_.size() * sizeof(std::int32_t));
    const auto it = memo_.find(key_);
    if (it != memo_.end()) return it->second;
    const double f = SharePool::fragmentation(cpu, memory, sorted_, mix_);
    memo_.emplace(key_, f);
    return f;
  }

  TaskMix mix_;
  std::unordered_map<std::string, double> memo_;
  std::vector<std::int32_t> sorted_, after_;
  std::string key_;
};

}  // namespace

std::unique_ptr<SharePlacer> make_share_fgd(const TaskMix& mix) { return std::make_unique<ShareFgd>(mix); }

}  // namespace fathom::place
