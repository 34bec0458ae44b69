// Feeding the step: every step's samples read from a storage tier by the data-loading ranks
// (docs/run.md#data-loading). Megatron-style: the first pipeline stage of each data-parallel
// replica reads its samples (the last stage reads them again for the labels when pp > 1), and
// tensor-parallel peers receive them from their rank 0, so a node reads the samples of the
// replicas whose first (or last) stage it holds.
//
// A node's read of one step is bound by whichever of its devices is slowest:
//   - bandwidth: the tier's aggregate read rate shared by every loading node (max-min, equal
//     shares), each capped by its link to the tier (its storage NICs, else its scale-out NICs);
//     a tier on the compute fabric: every loading node's read simulated at once on the fabric's
//     links (storage::fabric_transfer); a local_nvme tier is the node's own drives;
//   - IOPS: the tier's random-read rate shared the same way; shuffled samples are one request
//     each (or several, above the request size), sequential reads are requests of that size;
//   - metadata: a file opened per samples_per_file samples, at the tier's metadata_ops shared the
//     same way (a file system's metadata server; images stored one per file);
//   - latency: each loader worker keeps one request in flight (Little's law), so a node with
//     W workers over L loading ranks completes at most W*L / latency requests per second.
// A node-local cache (a local_nvme tier) keeps what was read: the first pass over the dataset is
// cold (every read goes to the tier); later passes hit the cache for the share of the dataset it
// holds (a global shuffle draws every sample uniformly). The loader prefetches: a step waits only
// for what its read takes beyond the step itself (with prefetch 0, for the whole read).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/training/training_spec.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::train {

enum class ReadPattern { kShuffle, kSequential };

struct DataSpec {
  std::string tier;             // the storage tier the samples are read from
  std::string cache;            // a local_nvme tier caching what was read; empty: none
  double bytes_per_sample = 0;  // as stored; 0: bytes_per_token x the sequence
  double bytes_per_token = 0;   // tokenised data (2 for uint16 token ids)
  ReadPattern pattern = ReadPattern::kShuffle;
  double request_bytes = 1 << 20;  // the largest read request; sequential reads are this size
  int workers = 2;                 // loader worker processes per loading rank
  int prefetch = 2;                // batches each worker prepares ahead; 0: the step waits for every read
  double samples_per_file = 0;     // a file opened (one metadata operation) per this many samples; 0: never
  double dataset_bytes = 0;        // the dataset; 0: no sample is read twice (one pass)

  double sample_bytes(int sequence) const {
    return bytes_per_sample > 0 ? bytes_per_sample : bytes_per_token * sequence;
  }
};

// The declared keys of `workload.data` (docs/parameters.md), beside `tier` and `cache`.
const std::vector<params::Parameter<DataSpec>>& data_parameters();

// One step's read at one loading node.
struct NodeRead {
  double seconds = 0;
  std::string limit;  // what bounds it: "tier bandwidth", "NICs", "storage NICs", "fabric" (the tier on the fabric),
                      // "IOPS", "latency", "cache"
};

struct DataLoading {
  int loading_nodes = 0;            // nodes whose ranks read samples
  int loaders_per_node = 0;         // loading ranks on each
  double samples_per_node = 0;      // per step
  double bytes_per_node = 0;        // per step
  double requests_per_node = 0;     // per step
  double required_bytes_per_s = 0;  // every loading node, at the step's own pace
  double required_iops = 0;
  double delivered_bytes_per_s = 0;  // cold, with the stall: what the tier gives the job
  double tier_iops = 0;              // the tier's IOPS for the whole job (0: not given)
  NodeRead cold;                     // a step's read with an empty cache
  NodeRead warm;                     // once the cache holds its share of the dataset
  double hit_rate = 0;               // warm reads served by the cache
  double cold_fraction = 1;          // share of the steps read cold (the first pass)
  double stall_cold_s = 0, stall_warm_s = 0;
  double stall_s = 0;            // mean per step
  double stall_fraction = 0;     // stall over (step + stall)
  double load_per_sample_s = 0;  // cold: a node's read time per sample it reads
  // A tier on the fabric (filled by the caller, which simulates the step): what the read takes of
  // the fabric's links averaged over a step (NIC-leaf, leaf-spine, spine-core), the step on what it
  // leaves, and what that adds to every step beside the stall.
  std::array<double, 3> link_load{};
  double traffic_step_s = 0;
  double traffic_slowdown_s = 0;
};

// Seconds for `nodes` loading nodes to read `bytes_per_node` each from a tier on the fabric, all at
// once (storage::fabric_transfer, without the request latency).
using FabricRead = std::function<double(int nodes, double bytes_per_node)>;

// `tier`: the data's tier; `cache`: the node-local cache's tier (null: none); `step_s`: the
// simulated step; `steps`: the run's steps (0: unknown, read cold throughout); `fabric_read`:
// required when the tier is on the fabric. std::invalid_argument when the samples have no size.
DataLoading plan_data_loading(const DataSpec& data, const storage::TierSpec& tier, const storage::TierSpec* cache,
                              const TrainingSpec& spec, const topo::NodeSpec& node, double step_s, double steps,
                              const FabricRead& fabric_read = {});

}  // namespace fathom::train
