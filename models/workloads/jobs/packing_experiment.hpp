// The packing experiment of "Beware of Fragmentation" (Weng et al., USENIX ATC'23): tasks drawn
// at random from a trace arrive one after another on an empty GPU-sharing cluster and none
// departs, until the GPUs they asked for reach a given fraction of the cluster's (`fill`, 130% in
// the paper). Each is placed by the policy or, when no node can hold it, fails. The allocation
// curve (GPUs allocated against GPUs asked for, both as fractions of the cluster) shows how soon
// fragmentation leaves capacity that no arriving task can use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/placement/share_placement.hpp"
#include "models/placement/share_pool.hpp"
#include "models/workloads/jobs/share_task.hpp"

namespace fathom::jobs {

struct PackingSpec {
  double fill = 1.3;  // stop once the arrived GPU demand reaches this fraction of the cluster's GPUs
  place::SharePolicy policy = place::SharePolicy::kFgd;
  std::uint64_t seed = 1;  // the draws of tasks (and the random policy's)
};

struct AllocationPoint {
  double arrived = 0;    // GPU demand arrived so far / cluster GPUs
  double allocated = 0;  // GPUs allocated / cluster GPUs
};

struct PackingRun {
  std::vector<AllocationPoint>
      curve;  // after each task that took the arrived demand past a whole percent, then the end
  std::int64_t arrivals = 0, placed = 0, failed = 0;
  std::int64_t failed_gpu_milli = 0;  // GPU demand of the tasks that failed, in thousandths
  double allocated_at_100 = -1;       // allocation when the arrived demand first reached 100% (-1: fill < 1)
  double allocated_at_end = 0;
  double arrived_at_end = 0;
  double cpu_allocated_at_end = 0;  // CPU allocated / the cluster's CPU: the limit when it nears 1
  double fragmentation_at_end = 0;  // the nodes' fragmentation against the trace's mix / cluster GPUs
  std::int64_t total_gpu_milli = 0;
};

// Throws std::invalid_argument when no task of `tasks` asks for a GPU, or fill is not positive.
PackingRun run_packing(std::vector<place::ShareNodeSpec> nodes, std::span<const ShareTask> tasks,
                       const PackingSpec& spec);

}  // namespace fathom::jobs
