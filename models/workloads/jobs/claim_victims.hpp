// Which running jobs an inference service's replica preempts on a shared cluster, when no node
// has room for it. Kubernetes' scheduler preempts the lowest-priority pods first and as few as it
// can (its "Pod Priority and Preemption"); fathom does the same over the jobs:
//   1. candidates in order: lowest priority first, then the latest started (the least settled),
//      then the highest job number; each one's GPUs are freed in a trial pool until the replica
//      fits there (place_replica);
//   2. then, newest pick first, a pick is dropped when the replica's GPUs are still free without
//      it: the victims are only jobs the replica's placement needs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/placement/gpu_pool.hpp"
#include "sim/time.hpp"

namespace fathom::jobs {

struct VictimCandidate {
  std::uint32_t job = 0;
  int priority = 0;
  sim::SimTime start;                        // its current run's start
  std::span<const place::NodeShare> shares;  // the GPUs it holds
};

struct Eviction {
  std::vector<std::uint32_t> victims;     // in the order they were picked
  std::vector<place::NodeShare> replica;  // where the replica goes once they have left
};

// The jobs to stop so that a replica of `gpus` GPUs fits, and where it then goes; none when even
// stopping every candidate leaves it no room. `candidates` are the jobs it may preempt (lower
// priority than its service, not already stopping), in any order.
std::optional<Eviction> choose_victims(const place::GpuPool& pool, std::vector<VictimCandidate> candidates,
                                       std::int32_t gpus);

}  // namespace fathom::jobs
