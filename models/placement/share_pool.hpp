// SharePool: a GPU-sharing cluster's nodes, each with CPU, memory and GPUs that tasks may take in
// thousandths (Alibaba's PAI, as "Beware of Fragmentation", Weng et al., USENIX ATC'23, describes
// it). A task runs on one node: a share of one GPU, whole GPUs, or none. The pool also measures
// fragmentation as that paper defines it, against a mix of the tasks expected to arrive.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/workloads/jobs/share_task.hpp"

namespace fathom::place {

struct ShareNodeSpec {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int32_t gpus = 0;
  std::int32_t model = 0;  // the GPU model's number (a node list names them)
};

// The tasks expected to arrive: each kind of demand with its share of the arrivals.
struct TaskMix {
  std::vector<jobs::ShareDemand> demands;
  std::vector<double> weights;  // summing to 1
};

// The mix of a list of demands: each distinct demand weighted by how often it occurs, in order of
// first appearance.
TaskMix mix_of(std::span<const jobs::ShareDemand> demands);

class SharePool {
 public:
  explicit SharePool(std::vector<ShareNodeSpec> nodes);

  std::int32_t nodes() const { return static_cast<std::int32_t>(specs_.size()); }
  const ShareNodeSpec& spec(std::int32_t n) const { return specs_[n]; }
  std::int64_t cpu_free(std::int32_t n) const { return cpu_[n]; }
  std::int64_t memory_free(std::int32_t n) const { return memory_[n]; }
  // Thousandths free of each GPU of node n.
  std::span<const std::int32_t> gpu_free(std::int32_t n) const {
    return {gpu_free_.data() + first_gpu_[n], static_cast<std::size_t>(specs_[n].gpus)};
  }
  // GPUs of node n with nothing allocated.
  std::int32_t idle_gpus(std::int32_t n) const;

  std::int64_t total_gpu_milli() const { return total_milli_; }
  std::int64_t allocated_gpu_milli() const { return allocated_milli_; }

  // Whether node n can hold `d` now.
  bool fits(std::int32_t n, const jobs::ShareDemand& d) const;
  // Gives `d` to node n, which must hold it: a share goes on GPU `gpu` (which must have room);
  // whole GPUs are the lowest-numbered idle ones. Throws std::logic_error otherwise.
  void take(std::int32_t n, std::int32_t gpu, const jobs::ShareDemand& d);

  // FGD's fragmentation of node n against `mix`, in thousandths of a GPU: for each kind of task,
  // the node's free GPU capacity that task cannot use (all of it when the task does not fit on
  // the node; otherwise each GPU's free part that is less than the task needs of one GPU),
  // weighted by the kind's share.
  double fragmentation(std::int32_t n, const TaskMix& mix) const;
  // The same for a node in the state given.
  static double fragmentation(std::int64_t cpu_free, std::int64_t memory_free, std::span<const std::int32_t> gpu_free,
                              const TaskMix& mix);

 private:
  std::vector<ShareNodeSpec> specs_;
  std::vector<std::int64_t> cpu_, memory_;
  std::vector<std::int32_t> gpu_free_;
  std::vector<std::size_t> first_gpu_;
  std::int64_t total_milli_ = 0, allocated_milli_ = 0;
};

// Whether a node in the state given can hold `d`.
bool fits_state(std::int64_t cpu_free, std::int64_t memory_free, std::span<const std::int32_t> gpu_free,
                const jobs::ShareDemand& d);

}  // namespace fathom::place
