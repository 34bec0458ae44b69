// A storage tier: where checkpoints are written and training data is read from. Three kinds,
// each described by what its clients see in aggregate (docs/storage.md):
//   - local_nvme: each node's own drives; figures are per node, and nodes do not share them;
//   - parallel_fs: a parallel or distributed file system (GlusterFS, Lustre) served by its
//     servers over the network; figures are the servers' aggregate;
//   - object_store: an S3-compatible store (MinIO); figures are the servers' aggregate.
// Redundancy costs writes, not reads: a replicated volume writes every byte `replicas` times,
// an erasure-coded one (GlusterFS dispersed, MinIO's EC:N) writes (data + parity) / data bytes
// per byte. `write_bandwidth` is what the drives and servers absorb in raw bytes, so a client
// sees write_bandwidth / write_amplification().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"

namespace fathom::storage {

enum class TierKind { kLocalNvme, kParallelFs, kObjectStore };

struct TierSpec {
  std::string name;  // the scenario's key under `storage:`
  TierKind kind = TierKind::kParallelFs;
  double capacity_bytes = 0;     // usable, after redundancy; local_nvme: per node
  double read_bytes_per_s = 0;   // local_nvme: per node
  double write_bytes_per_s = 0;  // raw, before redundancy; local_nvme: per node
  double iops = 0;               // small random reads per second; local_nvme: per node
  std::int64_t latency_ns = 0;   // per request: before the first byte of a transfer moves
  int replicas = 1;              // copies of every byte (a replicated volume)
  int data_shards = 0;           // erasure coding: data shards per stripe (0: none)
  int parity_shards = 0;         // erasure coding: parity shards per stripe
  double usd_per_tb_month = 0;   // price of a usable terabyte per month

  bool per_node() const { return kind == TierKind::kLocalNvme; }
  // Raw bytes written per byte stored: replicas, times (data + parity) / data with erasure coding.
  double write_amplification() const;
  double client_write_bytes_per_s() const { return write_bytes_per_s / write_amplification(); }
};

std::string_view tier_kind_name(TierKind kind);

// The declared keys of a tier (docs/parameters.md), beside `kind` and `erasure`.
const std::vector<params::Parameter<TierSpec>>& tier_parameters();

}  // namespace fathom::storage
