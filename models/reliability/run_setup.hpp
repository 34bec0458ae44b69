// From a simulated training step to the inputs of the whole-run model: the step time, the
// steps to train, the checkpoint's size and its write, copy and read times on its storage
// tier, the Young/Daly interval, and the units each failure class counts (docs/run.md).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "models/reliability/whole_run.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/training/checkpoint.hpp"
#include "models/workloads/training/step_model.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::rel {

struct RunSpec {
  double tokens = 0;      // to train; 0: the workload's `tokens`
  double duration_s = 0;  // simulate this long instead of to the end
  int replications = 100;
};

struct RunSetup {
  std::optional<train::CheckpointSize> checkpoint;  // none without `checkpoint:`
  double write_s = 0;                               // one checkpoint written by its writers at once, synchronously
  double block_s = 0;                               // what the step loop waits per checkpoint
  double drain_s = 0;                               // asynchronous: the write behind the steps
  double restore_s = 0;                             // every node reading back what it holds
  double young_s = 0, daly_s = 0;                   // optimum seconds of work between checkpoints
  int interval_steps = 0;                           // as used (0: no checkpoints)
  RunInputs inputs;
};

// A request the cluster cannot serve (a checkpoint larger than its tier): `key` names the
// scenario key to blame.
class RunSetupError : public std::invalid_argument {
 public:
  RunSetupError(std::string key, const std::string& expected, std::string found)
      : std::invalid_argument(expected), key_(std::move(key)), found_(std::move(found)) {}
  const std::string& key() const { return key_; }
  const std::string& found() const { return found_; }

 private:
  std::string key_, found_;
};

// `step`: the simulated step (it must fit); `data_stall_s`: what each step waits for its data
// beside it (train::DataLoading::stall_s); `tier`: the checkpoint's tier (null without
// checkpointing); `cluster_nodes`: the cluster's nodes, whose idle ones are the spares by
// default.
RunSetup plan_run(const RunSpec& run, const std::optional<train::CheckpointSpec>& checkpoint,
                  const storage::TierSpec* tier, const FailureSpec& failures, const train::TrainingSpec& spec,
                  const train::TrainingResult& step, double data_stall_s, const topo::NodeSpec& node, int cluster_nodes,
                  std::uint64_t seed);

// Seconds for `groups` of nodes to write (or read) through `tier`: each node's flow capped by its
// NICs (a shared tier) or its own drive (local_nvme), the tier's aggregate shared max-min, plus
// one request latency.
double tier_transfer_s(const storage::TierSpec& tier, const topo::NodeSpec& node,
                       const std::vector<train::CheckpointSize::StageRead>& groups, bool write);

}  // namespace fathom::rel
