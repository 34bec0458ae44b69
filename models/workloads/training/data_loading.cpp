#include "models/workloads/training/data_loading.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fathom::train {

namespace {

// The slowest of a read's bounds, named.
struct Bound {
  double seconds = 0;
  const char* limit = "tier bandwidth";
  void at_least(double s, const char* why) {
    if (s > seconds) {
      seconds = s;
      limit = why;
    }
  }
};

}  // namespace

const std::vector<params::Parameter<DataSpec>>& data_parameters() {
  using params::Quantity;
  static const std::vector<params::Parameter<DataSpec>> declared = {
      {"bytes_per_sample", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(DataSpec, bytes_per_sample),
       "one sample as stored (an image, a packed sequence); this or bytes_per_token", "none: the dataset's own"},
      {"bytes_per_token", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(DataSpec, bytes_per_token),
       "tokenised data: bytes per token id, times workload.sequence per sample",
       "none: 2 for uint16 token ids, 4 for int32 (Megatron-LM's above a 65,500 vocabulary)"},
      {"pattern",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(DataSpec, pattern),
       "shuffle: a random read per sample; sequential: reads of request_size in order",
       "shuffle: a DistributedSampler's global shuffle",
       {},
       "shuffle sequential"},
      {"request_size",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(DataSpec, request_bytes),
       "the largest read request; sequential reads are this size",
       "1MiB: Lustre's default stripe size",
       {},
       {},
       true},
      {"workers", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(DataSpec, workers),
       "loader worker processes per loading rank, each with one read in flight",
       "2: Megatron-LM's --num-workers default"},
      {"prefetch", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(DataSpec, prefetch),
       "batches each worker prepares ahead; 0: the step waits for its whole read",
       "2: PyTorch DataLoader's prefetch_factor default"},
      {"samples_per_file", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(DataSpec, samples_per_file),
       "samples in each file of the dataset: a loader opens a file (one metadata operation on the tier) per this "
       "many samples it reads (1: a file per sample, as an image folder); 0: a few large files opened once",
       "0: Megatron-LM's indexed dataset (one .bin file, memory-mapped)"},
      {"dataset", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(DataSpec, dataset_bytes),
       "the dataset's size, for how many passes the run makes over it; 0: no sample is read twice",
       "0: one pass (LLM pre-training)"},
  };
  return declared;
}

DataLoading plan_data_loading(const DataSpec& data, const storage::TierSpec& tier, const storage::TierSpec* cache,
                              const TrainingSpec& spec, const topo::NodeSpec& node, double step_s, double steps,
                              const FabricRead& fabric_read) {
  const double sample = data.sample_bytes(spec.sequence);
  if (!(sample > 0))
    throw std::invalid_argument("plan_data_loading: a sample's size (bytes_per_sample or bytes_per_token)");
  if (!(data.request_bytes > 0) || data.workers < 1 || !(step_s > 0)) {
    throw std::invalid_argument("plan_data_loading: positive request size, workers and step");
  }
  DataLoading d;
  const int gpus_per_node = std::max(1, node.gpus);
  const int job_nodes = (spec.gpus + gpus_per_node - 1) / gpus_per_node;
  const int pp = std::max(1, spec.parallel.pp);
  const int copies = pp > 1 ? 2 : 1;  // the first stage's inputs, the last stage's labels
  const int stage_nodes = std::max(1, job_nodes / pp);
  d.loading_nodes = std::min(job_nodes, stage_nodes * copies);
  d.loaders_per_node = std::max(1, (spec.parallel.dp * copies + d.loading_nodes - 1) / d.loading_nodes);
  d.samples_per_node = static_cast<double>(spec.global_batch) * copies / d.loading_nodes;
  d.bytes_per_node = d.samples_per_node * sample;
  d.requests_per_node = data.pattern == ReadPattern::kShuffle
                            ? d.samples_per_node * std::ceil(sample / data.request_bytes)
                            : d.bytes_per_node / data.request_bytes;
  const double loading = d.loading_nodes;
  d.required_bytes_per_s = loading * d.bytes_per_node / step_s;
  d.required_iops = loading * d.requests_per_node / step_s;
  d.tier_iops = tier.per_node() ? tier.iops * job_nodes : tier.iops;

  // A node's share of the tier: the tier's aggregate split among the loading nodes, capped by
  // the node's link to it (a shared tier), or the node's own drives (local_nvme); on the fabric,
  // what the fabric's links and the servers' ports give every loading node reading at once.
  const double nics = tier.client_link_bytes_per_s(node.nics * node.nic_bytes_per_s);
  double bandwidth = tier.per_node() ? tier.read_bytes_per_s : tier.read_bytes_per_s / loading;
  const char* bandwidth_limit = "tier bandwidth";
  if (tier.on_fabric()) {
    if (!fabric_read) throw std::invalid_argument("plan_data_loading: a tier on the fabric needs the fabric's read");
    bandwidth = d.bytes_per_node / fabric_read(d.loading_nodes, d.bytes_per_node);
    bandwidth_limit = "fabric";
  } else if (!tier.per_node() && nics > 0 && nics < bandwidth) {
    bandwidth = nics;
    bandwidth_limit = tier.client_network_bytes_per_s > 0 ? "storage NICs" : "NICs";
  }
  const double iops = tier.per_node() ? tier.iops : tier.iops / loading;
  // Opening the files the samples are in: the tier's metadata service, shared by the loading nodes.
  const double opens = data.samples_per_file > 0 ? d.samples_per_node / data.samples_per_file : 0;
  const double metadata_ops = tier.per_node() ? tier.metadata_ops : tier.metadata_ops / loading;
  const double in_flight = static_cast<double>(data.workers) * d.loaders_per_node;

  // `hit` of the node's step read served by the cache, the rest by the tier.
  const auto read = [&](double hit) {
    Bound b;
    const double miss = 1 - hit;
    b.at_least(miss * d.bytes_per_node / bandwidth, bandwidth_limit);
    if (iops > 0) b.at_least(miss * d.requests_per_node / iops, "IOPS");
    if (metadata_ops > 0) b.at_least(miss * opens / metadata_ops, "metadata");
    double latency = miss * d.requests_per_node * static_cast<double>(tier.latency_ns) / 1e9;
    if (cache != nullptr && hit > 0) {
      b.at_least(hit * d.bytes_per_node / cache->read_bytes_per_s, "cache");
      if (cache->iops > 0) b.at_least(hit * d.requests_per_node / cache->iops, "cache");
      latency += hit * d.requests_per_node * static_cast<double>(cache->latency_ns) / 1e9;
    }
    b.at_least(latency / in_flight, "latency");
    return NodeRead{b.seconds, b.limit};
  };
  d.cold = read(0);
  if (cache != nullptr && data.dataset_bytes > 0) {
    d.hit_rate = cache->capacity_bytes > 0 ? std::min(1.0, cache->capacity_bytes / data.dataset_bytes) : 1.0;
  }
  d.warm = read(d.hit_rate);
  if (data.dataset_bytes > 0 && steps > 0) {
    const double passes = steps * spec.global_batch * sample / data.dataset_bytes;
    d.cold_fraction = std::min(1.0, 1.0 / passes);
  }
  const auto stall = [&](double read_s) { return data.prefetch > 0 ? std::max(0.0, read_s - step_s) : read_s; };
  d.stall_cold_s = stall(d.cold.seconds);
  d.stall_warm_s = stall(d.warm.seconds);
  d.stall_s = d.cold_fraction * d.stall_cold_s + (1 - d.cold_fraction) * d.stall_warm_s;
  d.stall_fraction = d.stall_s / (step_s + d.stall_s);
  d.delivered_bytes_per_s = loading * d.bytes_per_node / (step_s + d.stall_cold_s);
  d.load_per_sample_s = d.cold.seconds / d.samples_per_node;
  return d;
}

}  // namespace fathom::train
