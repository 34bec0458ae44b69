#include "models/storage/storage_tier.hpp"

namespace fathom::storage {

double TierSpec::write_amplification() const {
  const double erasure = data_shards > 0 ? static_cast<double>(data_shards + parity_shards) / data_shards : 1.0;
  return replicas * erasure;
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
  };
  return declared;
}

}  // namespace fathom::storage
