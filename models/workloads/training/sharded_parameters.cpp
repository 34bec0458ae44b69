#include "models/workloads/training/sharded_parameters.hpp"

#include <algorithm>
#include <cstddef>

namespace fathom::train {

double pass_seconds(const std::vector<ModuleCost>& modules, int depth) {
  const std::size_t n = modules.size();
  if (n == 0) return 0;
  // The communication stream runs its operations one after another in issue order; each is
  // issued no earlier than the one before, so the time it is next free is all it needs.
  double comm_free = 0;
  auto issue = [&comm_free](double at, double seconds) {
    comm_free = std::max(comm_free, at) + seconds;
    return comm_free;
  };
  const auto ahead = static_cast<std::size_t>(std::max(depth, 0));
  std::vector<double> gathered(n, 0);
  std::size_t next_gather = 0;
  auto gather_next = [&](double at) {
    if (next_gather < n) {
      gathered[next_gather] = issue(at, modules[next_gather].gather_seconds);
      ++next_gather;
    }
  };
  // Module 0's gather, and with prefetching the `depth` - 1 after it, at the pass's start.
  for (std::size_t k = 0; k < std::max<std::size_t>(ahead, 1); ++k) gather_next(0);
  double compute_free = 0;
  double scatters_done = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // On demand (depth 0) the gather is issued when the module is next; prefetched, starting
    // module i issues the gather of module i + depth (FSDP's forward and backward prefetch).
    if (ahead == 0 && i > 0) gather_next(compute_free);
    const double start = std::max(compute_free, gathered[i]);
    if (ahead > 0) gather_next(start);
    compute_free = start + modules[i].compute_seconds;
    if (modules[i].scatter_seconds > 0) {
      scatters_done = std::max(scatters_done, issue(compute_free, modules[i].scatter_seconds));
    }
  }
  return std::max(compute_free, scatters_done);
}

}  // namespace fathom::train
