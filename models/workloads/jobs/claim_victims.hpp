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
#include <functional>
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

// An elastic job a claim may shrink instead of stopping (TorchElastic's kind: it checkpoints and
// restarts on fewer GPUs, keeping its global batch).
struct ShrinkCandidate {
  VictimCandidate job;
  std::int32_t gpus = 0;      // it holds now
  std::int32_t min_gpus = 0;  // it may shrink to
  std::int32_t granule = 1;   // its model-parallel group: it gives GPUs up in whole groups
};

struct Shrink {
  std::uint32_t job = 0;
  place::NodeShare release;               // the GPUs it gives up
  std::vector<place::NodeShare> replica;  // where the replica goes once they are free
};

// The elastic job to shrink so that a replica of `gpus` GPUs fits on one node, and by how much:
// candidates in the victims' order (lowest priority, latest started, highest number); the first
// that can give up, on one node, whole groups covering what the replica lacks there (the fewest
// GPUs, then the tightest node, then the lowest) while keeping at least min_gpus and a width
// `can_take` allows (a width whose data-parallel ranks divide the global batch, say).
// None for a replica larger than a node (whole nodes are stopped, not shrunk) or when no
// candidate can.
std::optional<Shrink> choose_shrink(const place::GpuPool& pool, std::vector<ShrinkCandidate> candidates,
                                    std::int32_t gpus,
                                    const std::function<bool(std::uint32_t job, std::int32_t gpus)>& can_take);

// The jobs to stop so that a replica of `gpus` GPUs fits, and where it then goes; none when even
// stopping every candidate leaves it no room. `candidates` are the jobs it may preempt (lower
// priority than its service, not already stopping), in any order.
std::optional<Eviction> choose_victims(const place::GpuPool& pool, std::vector<VictimCandidate> candidates,
                                       std::int32_t gpus);

}  // namespace fathom::jobs
