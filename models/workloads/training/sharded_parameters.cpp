#include "models/workloads/training/sharded_parameters.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace fathom::train {

double pass_seconds(const std::vector<ModuleCost>& modules, int depth, double stretch) {
  const std::size_t n = modules.size();
  if (n == 0) return 0;
  // The communication stream runs its operations one after another in issue order; each is
  // issued no earlier than the one before, so the time it is next free is all it needs. Its
  // busy spans are kept (in time order, as issued) to slow the compute that runs beside them.
  double comm_free = 0;
  std::vector<std::pair<double, double>> busy;
  auto issue = [&](double at, double seconds) {
    const double from = std::max(comm_free, at);
    comm_free = from + seconds;
    if (seconds > 0) busy.emplace_back(from, comm_free);
    return comm_free;
  };
  // When `work` seconds of compute started at `start` end: at full rate where the stream is
  // idle, at 1 / (1 + stretch) of it where it is busy. Every span that can overlap was issued
  // no later than `start` (gathers ahead of it, scatters of modules before it); starts only
  // grow, so spans that ended before one are skipped for good.
  std::size_t first_busy = 0;
  const double rate = 1.0 / (1.0 + std::max(stretch, 0.0));
  auto finish = [&](double start, double work) {
    while (first_busy < busy.size() && busy[first_busy].second <= start) ++first_busy;
    double t = start;
    for (std::size_t k = first_busy; k < busy.size() && work > 0; ++k) {
      const auto [from, to] = busy[k];
      if (from > t) {
        if (work <= from - t) return t + work;
        work -= from - t;
        t = from;
      }
      const double done = (to - t) * rate;
      if (work <= done) return t + work / rate;
      work -= done;
      t = to;
    }
    return t + work;
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
    compute_free = finish(start, modules[i].compute_seconds);
    if (modules[i].scatter_seconds > 0) {
      scatters_done = std::max(scatters_done, issue(compute_free, modules[i].scatter_seconds));
    }
  }
  return std::max(compute_free, scatters_done);
}

}  // namespace fathom::train
