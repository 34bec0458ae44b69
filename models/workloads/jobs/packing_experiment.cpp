#include "models/workloads/jobs/packing_experiment.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/random.hpp"

namespace fathom::jobs {

PackingRun run_packing(std::vector<place::ShareNodeSpec> nodes, std::span<const ShareTask> tasks,
                       const PackingSpec& spec) {
  if (!(spec.fill > 0) || !std::isfinite(spec.fill)) throw std::invalid_argument("run_packing: fill must be positive");
  std::vector<ShareDemand> demands;
  demands.reserve(tasks.size());
  bool any_gpu = false;
  for (const ShareTask& t : tasks) {
    demands.push_back(t.demand);
    any_gpu = any_gpu || t.demand.gpu_demand_milli() > 0;
  }
  if (!any_gpu) throw std::invalid_argument("run_packing: no task of the trace asks for a GPU");
  const place::TaskMix mix = place::mix_of(demands);
  place::SharePool pool(std::move(nodes));
  if (pool.total_gpu_milli() == 0) throw std::invalid_argument("run_packing: the cluster has no GPU");
  const std::unique_ptr<place::SharePlacer> placer = place::make_share_placer(spec.policy, mix, spec.seed);
  sim::RandomStream draws(spec.seed, 1);
  PackingRun run;
  run.total_gpu_milli = pool.total_gpu_milli();
  const double total = static_cast<double>(pool.total_gpu_milli());
  const auto goal = static_cast<std::int64_t>(std::ceil(spec.fill * total));
  std::int64_t arrived = 0;
  int next_percent = 1;
  while (arrived < goal) {
    const ShareDemand& d = demands[draws.uniform_below(demands.size())];
    ++run.arrivals;
    arrived += d.gpu_demand_milli();
    const place::ShareChoice c = placer->choose(pool, d);
    if (c.node >= 0) {
      pool.take(c.node, c.gpu, d);
      ++run.placed;
    } else {
      ++run.failed;
      run.failed_gpu_milli += d.gpu_demand_milli();
    }
    const double allocated = static_cast<double>(pool.allocated_gpu_milli()) / total;
    if (run.allocated_at_100 < 0 && arrived >= pool.total_gpu_milli()) run.allocated_at_100 = allocated;
    // A point whenever the arrived demand passes a whole percent of the cluster (one point
    // for a task that passes several).
    if (static_cast<double>(arrived) >= next_percent / 100.0 * total) {
      run.curve.push_back({static_cast<double>(arrived) / total, allocated});
      while (static_cast<double>(arrived) >= next_percent / 100.0 * total) ++next_percent;
    }
  }
  run.arrived_at_end = static_cast<double>(arrived) / total;
  run.allocated_at_end = static_cast<double>(pool.allocated_gpu_milli()) / total;
  if (run.curve.empty() || run.curve.back().arrived != run.arrived_at_end) {
    run.curve.push_back({run.arrived_at_end, run.allocated_at_end});
  }
  double fragmented = 0, cpu_total = 0, cpu_free = 0;
  for (std::int32_t n = 0; n < pool.nodes(); ++n) {
    fragmented += pool.fragmentation(n, mix);
    cpu_total += static_cast<double>(pool.spec(n).cpu_milli);
    cpu_free += static_cast<double>(pool.cpu_free(n));
  }
  run.cpu_allocated_at_end = cpu_total > 0 ? 1 - cpu_free / cpu_total : 0;
  run.fragmentation_at_end = fragmented / total;
  return run;
}

}  // namespace fathom::jobs
