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
//
// A shared tier may instead be built from its servers (servers > 0; server_bounds()): each
// server's drives and network, and who writes the redundant copies. With `fanout: server`
// (MinIO) the server a client reaches encodes the object and sends its shards to the other
// servers of the erasure set; with `fanout: client` (GlusterFS's replicate and disperse
// translators, Lustre's striping) the client writes every copy or fragment to its server, so a
// client's NICs carry the amplified bytes and servers forward nothing.
//
// Where a shared tier's traffic travels (`attach`): on a storage network of its own, reached
// through each node's scale-out NICs or its own storage NICs (`client_network`), where a client
// is capped by those NICs and the tier by its aggregate; or on the compute fabric itself, where
// its servers hang off storage leaves and its traffic crosses the same NIC, leaf and spine links
// as the training job's (models/storage/fabric_transfer.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"

namespace fathom::storage {

enum class TierKind { kLocalNvme, kParallelFs, kObjectStore };
enum class Fanout { kServer, kClient };
enum class Attachment { kStorageNetwork, kFabric };

struct TierSpec {
  std::string name;    // the scenario's key under `storage:`
  std::string source;  // a catalog entry's sources (empty: the scenario's own figures)
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
  // Built from its servers (0: the aggregate figures above are given).
  int servers = 0;
  int drives_per_server = 0;
  double drive_read_bytes_per_s = 0;
  double drive_write_bytes_per_s = 0;
  double drive_iops = 0;                   // random reads per drive (0: not given)
  double network_bytes_per_s = 0;          // each server's NICs, per direction
  double backend_network_bytes_per_s = 0;  // a separate server-to-server network; 0: they share `network`
  Fanout fanout = Fanout::kServer;
  int stripe_count = 0;                 // servers a file is striped over (Lustre's lfs setstripe -c); 0: all of them
  double metadata_ops = 0;              // file creates and opens per second its metadata service serves; 0: no bound
  double part_bytes = 8 * 1024 * 1024;  // object_store: a multipart upload's part (boto3's default 8 MiB)
  int parts_in_flight = 10;             // object_store: requests a writer or reader keeps in flight (boto3: 10)
  Attachment attach = Attachment::kStorageNetwork;
  double client_network_bytes_per_s = 0;  // each node's link to a storage network; 0: its scale-out NICs

  bool per_node() const { return kind == TierKind::kLocalNvme; }
  // Raw bytes written per byte stored: replicas, times (data + parity) / data with erasure coding.
  double write_amplification() const;
  double client_write_bytes_per_s() const { return write_bytes_per_s / write_amplification(); }
  // What a client's NICs carry per byte it writes: the amplification when it writes the copies.
  double client_write_traffic() const { return fanout == Fanout::kClient ? write_amplification() : 1.0; }
  // A node's link to the tier on a storage network: its storage NICs, else `node_nics` (its
  // scale-out NICs, per direction).
  double client_link_bytes_per_s(double node_nics) const {
    return client_network_bytes_per_s > 0 ? client_network_bytes_per_s : node_nics;
  }
  bool on_fabric() const { return attach == Attachment::kFabric; }
  // One writer's (or reader's) rate as its requests allow: an object store's client keeps
  // parts_in_flight parts moving, each waiting one request latency first (Little's law), so it
  // moves at most parts_in_flight x part_size per latency. Infinity for a file system, or without
  // a latency.
  double request_bound_bytes_per_s() const;
  // One file's rate when striped over stripe_count servers of a tier built from them: that many
  // servers' rate (server_bounds; a write in the bytes its client sends before redundancy).
  // Infinity with every server (stripe_count 0 or at least `servers`) or aggregate figures.
  double file_bound_bytes_per_s(bool write) const;
  // Seconds the metadata service takes to create or open `files` (0 without metadata_ops).
  double metadata_s(double files) const { return metadata_ops > 0 ? files / metadata_ops : 0; }
};

// One server's client-facing rates when every server is equally busy, and what bounds each:
// "drives", "network" or "backend network". With `fanout: server` a byte written crosses the
// receiving server's network once from the client, then (data + parity) / data times as shards,
// of which the share f = 1 - 1/servers lands on other servers (placement is symmetric): ingress
// is D (1 + a f) on a shared network. A read fetches the data shards, f of them from peers:
// egress is D (1 + f). With `fanout: client` the servers only absorb their own bricks' bytes.
struct ServerBounds {
  double read_bytes_per_s = 0;   // client bytes a server delivers
  double write_bytes_per_s = 0;  // client bytes a server absorbs (before redundancy)
  const char* read_limit = "drives";
  const char* write_limit = "drives";
};
ServerBounds server_bounds(const TierSpec& tier);

// Fills the aggregate figures of a tier built from its servers: read_bandwidth, the raw
// write_bandwidth and (from the drives' IOPS, each read touching `data` shards) iops when not given.
void derive_from_servers(TierSpec& tier);

std::string_view tier_kind_name(TierKind kind);

// The declared keys of a tier (docs/parameters.md), beside `kind` and `erasure`.
const std::vector<params::Parameter<TierSpec>>& tier_parameters();

}  // namespace fathom::storage
