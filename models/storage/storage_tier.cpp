#include "models/storage/storage_tier.hpp"

#include <algorithm>
#include <limits>

namespace fathom::storage {

double TierSpec::write_amplification() const {
  const double erasure = data_shards > 0 ? static_cast<double>(data_shards + parity_shards) / data_shards : 1.0;
  return replicas * erasure;
}

double TierSpec::request_bound_bytes_per_s() const {
  if (kind != TierKind::kObjectStore || latency_ns <= 0) return std::numeric_limits<double>::infinity();
  return parts_in_flight * part_bytes / (static_cast<double>(latency_ns) / 1e9);
}

double TierSpec::file_bound_bytes_per_s(bool write) const {
  if (servers < 1 || stripe_count < 1 || stripe_count >= servers) return std::numeric_limits<double>::infinity();
  const ServerBounds b = server_bounds(*this);
  return stripe_count * (write ? b.write_bytes_per_s : b.read_bytes_per_s);
}

ServerBounds server_bounds(const TierSpec& t) {
  ServerBounds b;
  const double a = t.write_amplification();
  const double drives_read = t.drives_per_server * t.drive_read_bytes_per_s;
  const double drives_write = t.drives_per_server * t.drive_write_bytes_per_s / a;
  const auto bound = [](double& rate, const char*& limit, double candidate, const char* why) {
    if (candidate < rate) {
      rate = candidate;
      limit = why;
    }
  };
  b.read_bytes_per_s = drives_read;
  b.write_bytes_per_s = drives_write;
  if (t.fanout == Fanout::kClient) {
    bound(b.read_bytes_per_s, b.read_limit, t.network_bytes_per_s, "network");
    bound(b.write_bytes_per_s, b.write_limit, t.network_bytes_per_s / a, "network");
    return b;
  }
  const double remote = t.servers > 1 ? 1.0 - 1.0 / t.servers : 0.0;  // shards on other servers
  if (t.backend_network_bytes_per_s > 0) {
    bound(b.read_bytes_per_s, b.read_limit, t.network_bytes_per_s, "network");
    bound(b.write_bytes_per_s, b.write_limit, t.network_bytes_per_s, "network");
    if (remote > 0) {
      bound(b.read_bytes_per_s, b.read_limit, t.backend_network_bytes_per_s / remote, "backend network");
      bound(b.write_bytes_per_s, b.write_limit, t.backend_network_bytes_per_s / (a * remote), "backend network");
    }
  } else {
    bound(b.read_bytes_per_s, b.read_limit, t.network_bytes_per_s / (1 + remote), "network");
    bound(b.write_bytes_per_s, b.write_limit, t.network_bytes_per_s / (1 + a * remote), "network");
  }
  return b;
}

void derive_from_servers(TierSpec& t) {
  const ServerBounds b = server_bounds(t);
  t.read_bytes_per_s = t.servers * b.read_bytes_per_s;
  t.write_bytes_per_s = t.servers * b.write_bytes_per_s * t.write_amplification();
  if (t.iops == 0 && t.drive_iops > 0) {
    t.iops = t.servers * t.drives_per_server * t.drive_iops / std::max(1, t.data_shards);
  }
}

std::string_view tier_kind_name(TierKind kind) {
  switch (kind) {
    case TierKind::kLocalNvme:
      return "local_nvme";
    case TierKind::kParallelFs:
      return "parallel_fs";
    case TierKind::kObjectStore:
      return "object_store";
  }
  return "?";
}

const std::vector<params::Parameter<TierSpec>>& tier_parameters() {
  using params::Quantity;
  static constexpr std::string_view kSystem =
      "none: the system's own figure (its datasheet, or fio through `fathom "
      "calibrate`)";
  static const std::vector<params::Parameter<TierSpec>> declared = {
      {"kind",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(TierSpec, kind),
       "local_nvme (per node), parallel_fs (GlusterFS, Lustre) or object_store (MinIO, S3)",
       "parallel_fs",
       {},
       "local_nvme parallel_fs object_store"},
      {"capacity", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(TierSpec, capacity_bytes),
       "usable capacity after redundancy (local_nvme: per node); 0: unlimited", kSystem},
      {"read_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(TierSpec, read_bytes_per_s),
       "aggregate read bandwidth its clients can reach (local_nvme: per node)",
       kSystem,
       {},
       {},
       true},
      {"write_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(TierSpec, write_bytes_per_s),
       "raw write bandwidth its drives and servers absorb, before replication or parity (local_nvme: per node)",
       kSystem,
       {},
       {},
       true},
      {"iops", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(TierSpec, iops),
       "small random reads per second (local_nvme: per node); 0: not given", kSystem},
      {"latency", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(TierSpec, latency_ns),
       "per request, before its first byte moves", kSystem},
      {"replicas", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TierSpec, replicas),
       "copies of every byte written (a GlusterFS replica volume: 3)", "1: none"},
      {"erasure.data", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(TierSpec, data_shards),
       "erasure coding: data shards per stripe (GlusterFS dispersed 4+2: 4; MinIO 16 drives at EC:4: 12); 0: none",
       "0: none"},
      {"erasure.parity", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(TierSpec, parity_shards),
       "erasure coding: parity shards per stripe", "0: none"},
      {"price", Quantity::kUsd, FATHOM_PARAMETER_MEMBER(TierSpec, usd_per_tb_month), "per usable terabyte and month",
       "0: not priced"},
      {"servers", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(TierSpec, servers),
       "build a shared tier from its servers (then drives, drive_read, drive_write and network are required, and "
       "read_bandwidth and write_bandwidth are derived)",
       "0: the aggregate figures are given"},
      {"drives", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(TierSpec, drives_per_server), "drives per server",
       kSystem},
      {"drive_read", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(TierSpec, drive_read_bytes_per_s),
       "one drive's sequential read rate", kSystem},
      {"drive_write", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(TierSpec, drive_write_bytes_per_s),
       "one drive's sequential write rate", kSystem},
      {"drive_iops", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(TierSpec, drive_iops),
       "one drive's random reads per second; the tier's iops is servers x drives x this / erasure.data", kSystem},
      {"network", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(TierSpec, network_bytes_per_s),
       "each server's NICs, per direction", kSystem},
      {"backend_network", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(TierSpec, backend_network_bytes_per_s),
       "each server's NICs on a separate server-to-server network, per direction",
       "0: servers talk to each other over `network`"},
      {"fanout",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(TierSpec, fanout),
       "who writes the redundant copies: server (MinIO: the receiving server sends the shards) or client "
       "(GlusterFS's replicate and disperse translators, Lustre)",
       "server",
       {},
       "server client"},
      {"stripe_count", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(TierSpec, stripe_count),
       "a tier built from servers: servers each file is striped over (Lustre's lfs setstripe -c; a GlusterFS "
       "distribute volume keeps a file on one brick: 1), so one file moves at most that many servers' rate",
       "0: every server (a file spread over the whole tier)"},
      {"metadata_ops", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(TierSpec, metadata_ops),
       "file creates and opens per second its metadata service serves (a Lustre MDS, GlusterFS's bricks): a "
       "checkpoint creates a file per writing rank, a restore opens one per rank, data loading one per file read",
       "0: not a bound"},
      {"part_size",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(TierSpec, part_bytes),
       "object_store: a multipart upload's part, and a ranged read's",
       "8 MiB: boto3's and the AWS CLI's multipart_chunksize",
       {},
       {},
       true},
      {"parts_in_flight", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TierSpec, parts_in_flight),
       "object_store: requests each writing or reading rank keeps in flight; with `latency` they bound its rate to "
       "parts_in_flight x part_size / latency",
       "10: boto3's max_concurrency and the AWS CLI's max_concurrent_requests"},
      {"attach",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(TierSpec, attach),
       "where a shared tier's traffic travels: storage_network (a network of its own) or fabric (its servers on "
       "storage leaves of the compute fabric, sharing its links; needs servers:)",
       "storage_network",
       {},
       "storage_network fabric"},
      {"client_network", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(TierSpec, client_network_bytes_per_s),
       "each node's bandwidth to a storage network (its storage NICs, per direction)", "0: the node's scale-out NICs"},
  };
  return declared;
}

}  // namespace fathom::storage
