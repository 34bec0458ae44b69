// From a simulated training step to the inputs of the whole-run model: the step time, the
// steps to train, the checkpoint's size and its write, copy and read times on its storage
// tier, the Young/Daly interval, and the units each failure class counts (docs/run.md).
#pragma once

#include <array>
#include <functional>
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
  // Asynchronous to a tier on the fabric: the drain shares the fabric's links with the steps
  // behind it (storage::sharing_links). What it takes of them by tier (NIC-leaf, leaf-spine,
  // spine-core), a step on what it leaves, and per checkpoint the time those steps lose (counted
  // in block_s).
  std::array<double, 3> drain_link_load{};
  double drain_step_s = 0;  // 0: the drain does not share the job's links
  double drain_slowdown_s = 0;
  double young_s = 0, daly_s = 0;  // optimum seconds of work between checkpoints
  int interval_steps = 0;          // as used (0: no checkpoints)
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
// checkpointing); `cluster`: the cluster, whose idle nodes are the spares by default and whose
// fabric carries a tier attached to it; `seed`: the replications' and the fabric's.
// The job's step, in seconds, simulated on another cluster (the same job, its fabric's links at
// other rates).
using StepOn = std::function<double(const topo::ClusterSpec&)>;

// `step_on`: for an asynchronous checkpoint on a tier on the fabric, the step behind the drain
// (empty: the drain costs the steps nothing).
RunSetup plan_run(const RunSpec& run, const std::optional<train::CheckpointSpec>& checkpoint,
                  const storage::TierSpec* tier, const FailureSpec& failures, const train::TrainingSpec& spec,
                  const train::TrainingResult& step, double data_stall_s, const topo::ClusterSpec& cluster,
                  std::uint64_t seed, const StepOn& step_on = {});

// Who moves a transfer's bytes: on each node, `streams_per_node` ranks, each with a file and
// requests of its own (an object store's parts in flight bound each:
// storage::TierSpec::request_bound_bytes_per_s; so do the servers its file is striped over:
// file_bound_bytes_per_s),
// and the `files` the transfer creates or opens (the tier's metadata_ops bound them; the files
// and the bytes move together, and the slower bounds the transfer).
struct TransferRequests {
  int streams_per_node = 1;
  double files = 0;
};

// Seconds for `groups` of the job's `job_nodes` nodes to write (or read) through `tier`, plus one
// request latency. On a storage network: each node's flow capped by its link to it (the tier's
// client_network, else its NICs) or by its own drive (local_nvme), the tier's aggregate shared
// max-min. On the fabric (`attach: fabric`): simulated on the cluster's links with the tier's
// servers attached (storage::fabric_transfer).
double tier_transfer_s(const storage::TierSpec& tier, const topo::ClusterSpec& cluster, int job_nodes,
                       const std::vector<train::CheckpointSize::StageRead>& groups, bool write, std::uint64_t seed,
                       const TransferRequests& requests = {});

// Who writes a checkpoint of `size`: its writing ranks on each writing node, a file each and
// the checkpoint's metadata file.
TransferRequests checkpoint_write_requests(const train::CheckpointSize& size);

// One checkpoint of `size` (of a job of `gpus` GPUs on `job_nodes` nodes) written to `tier` and
// read back, as plan_run times them: seconds.
struct CheckpointTimes {
  double write_s = 0, restore_s = 0;
};
CheckpointTimes checkpoint_times(const storage::TierSpec& tier, const topo::ClusterSpec& cluster, int job_nodes,
                                 const train::CheckpointSize& size, int gpus, std::uint64_t seed);

}  // namespace fathom::rel
