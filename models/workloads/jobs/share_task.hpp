// A task of a GPU-sharing cluster, as the Alibaba PAI trace (Weng et al., "Beware of
// Fragmentation", USENIX ATC'23) records its Kubernetes pods: CPU and memory, and either no GPU,
// a share of one GPU (thousandths of it), or whole GPUs, all on one node.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/time.hpp"

namespace fathom::jobs {

// What a task asks one node for.
struct ShareDemand {
  std::int64_t cpu_milli = 0;  // thousandths of a CPU core
  std::int64_t memory_mib = 0;
  std::int32_t gpus = 0;       // GPUs it uses
  std::int32_t gpu_milli = 0;  // thousandths of each: below 1000 only for a one-GPU task (a share)
  bool is_share() const { return gpus == 1 && gpu_milli < 1000; }
  // Its GPU demand in thousandths of a GPU.
  std::int64_t gpu_demand_milli() const { return std::int64_t{gpus} * gpu_milli; }
  bool operator==(const ShareDemand&) const = default;
};

enum class PodPhase : std::uint8_t { kRunning, kSucceeded, kFailed, kPending, kUnknown };

struct ShareTask {
  ShareDemand demand;
  sim::SimTime created, deleted;
  std::optional<sim::SimTime> scheduled;  // none for a pod that never ran
  PodPhase phase = PodPhase::kUnknown;
  std::int32_t line = 0;  // in the trace file
};

}  // namespace fathom::jobs
