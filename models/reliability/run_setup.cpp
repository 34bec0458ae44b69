#include "models/reliability/run_setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "models/storage/fabric_transfer.hpp"
#include "models/storage/shared_transfer.hpp"
#include "sim/time.hpp"

namespace fathom::rel {

namespace {

std::int64_t ns(double seconds) { return sim::SimTime::from_seconds(seconds).ns(); }

std::string tb(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g TB", bytes / 1e12);
  return text;
}

// A transfer's time, and on the fabric what it takes of the fabric's links.
struct TierTransfer {
  double seconds = 0;
  std::array<double, 3> link_load{};
};

TierTransfer transfer(const storage::TierSpec& tier, const topo::ClusterSpec& cluster, int job_nodes,
                      const std::vector<train::CheckpointSize::StageRead>& groups, bool write, std::uint64_t seed,
                      const TransferRequests& requests) {
  const double latency_s = static_cast<double>(tier.latency_ns) / 1e9;
  // An object store's client moves at most its requests in flight allow (every rank of a node
  // its own stream); a file system's metadata service creates or opens the files meanwhile, and
  // whichever takes longer bounds the transfer.
  // Each stream is a file, striped over stripe_count servers: that many servers' rate bounds it too.
  const double requests_cap =
      requests.streams_per_node * std::min(tier.request_bound_bytes_per_s(), tier.file_bound_bytes_per_s(write));
  double nodes = 0;
  for (const auto& g : groups) nodes += g.nodes;
  // A node's own drives create only its own files.
  const double metadata_s = tier.metadata_s(tier.per_node() && nodes > 0 ? requests.files / nodes : requests.files);
  if (tier.on_fabric()) {
    std::vector<storage::FabricClients> clients;
    double request_bound_s = 0;
    for (const auto& g : groups) {
      clients.push_back({g.nodes, g.bytes_per_node});
      request_bound_s = std::max(request_bound_s, g.bytes_per_node / requests_cap);
    }
    const storage::FabricTransfer t = storage::fabric_transfer(cluster, tier, job_nodes, clients, write, seed);
    return {latency_s + std::max({t.seconds, request_bound_s, metadata_s}), t.link_load};
  }
  const topo::NodeSpec& node = cluster.node;
  const double drive = write ? tier.client_write_bytes_per_s() : tier.read_bytes_per_s;
  const double nics = tier.client_link_bytes_per_s(node.nics * node.nic_bytes_per_s);
  std::vector<storage::ClientGroup> clients;
  // A client writing every copy itself (fanout: client) sends the amplified bytes over its NICs.
  const double link = tier.per_node() ? drive : write ? nics / tier.client_write_traffic() : nics;
  const double cap = std::min(link, requests_cap);
  for (const auto& g : groups) clients.push_back({g.nodes, g.bytes_per_node, cap});
  const double shared = tier.per_node() ? std::numeric_limits<double>::infinity() : drive;
  return {latency_s + std::max(storage::shared_transfer(clients, shared).seconds, metadata_s), {}};
}

}  // namespace

double tier_transfer_s(const storage::TierSpec& tier, const topo::ClusterSpec& cluster, int job_nodes,
                       const std::vector<train::CheckpointSize::StageRead>& groups, bool write, std::uint64_t seed,
                       const TransferRequests& requests) {
  return transfer(tier, cluster, job_nodes, groups, write, seed, requests).seconds;
}

TransferRequests checkpoint_write_requests(const train::CheckpointSize& size) {
  // A file a writing rank (PyTorch DCP's __<rank>_0.distcp), and the checkpoint's metadata file.
  const double per_gpu = size.bytes_per_writing_gpu > 0 ? size.bytes_per_writing_gpu : size.bytes_per_writing_node;
  const double writing_ranks = per_gpu > 0 ? std::round(size.bytes / per_gpu) : 0;
  const int ranks_per_writing_node =
      per_gpu > 0 ? std::max(1, static_cast<int>(std::round(size.bytes_per_writing_node / per_gpu))) : 1;
  return {ranks_per_writing_node, writing_ranks + 1};
}

CheckpointTimes checkpoint_times(const storage::TierSpec& tier, const topo::ClusterSpec& cluster, int job_nodes,
                                 const train::CheckpointSize& size, int gpus, std::uint64_t seed) {
  CheckpointTimes t;
  t.write_s = tier_transfer_s(tier, cluster, job_nodes, {{size.writing_nodes, size.bytes_per_writing_node}}, true, seed,
                              checkpoint_write_requests(size));
  // On restore every rank opens its own file.
  t.restore_s = tier_transfer_s(tier, cluster, job_nodes, size.reads, false, seed,
                                {cluster.node.gpus, static_cast<double>(gpus)});
  return t;
}

RunSetup plan_run(const RunSpec& run, const std::optional<train::CheckpointSpec>& checkpoint,
                  const storage::TierSpec* tier, const FailureSpec& failures, const train::TrainingSpec& spec,
                  const train::TrainingResult& step, double data_stall_s, const topo::ClusterSpec& cluster,
                  std::uint64_t seed, const StepOn& step_on) {
  const topo::NodeSpec& node = cluster.node;
  const int cluster_nodes = cluster.nodes;
  RunSetup s;
  RunInputs& in = s.inputs;
  in.step_ns = ns(step.step_seconds + data_stall_s);
  in.data_stall_ns = ns(data_stall_s);
  in.tokens_per_step = static_cast<double>(spec.global_batch) * spec.sequence;
  in.gpus = spec.gpus;
  const int nodes = (spec.gpus + node.gpus - 1) / node.gpus;
  in.units = {spec.gpus, nodes, std::int64_t{nodes} * node.nics};
  if (run.duration_s > 0) {
    in.duration_ns = ns(run.duration_s);
  } else {
    const double tokens = run.tokens > 0 ? run.tokens : spec.tokens;
    if (!(tokens > 0))
      throw RunSetupError("workload.run", "a token budget (workload.tokens or run.tokens) or a duration", "none");
    in.steps = static_cast<std::int64_t>(std::ceil(tokens / in.tokens_per_step));
  }
  in.failures = failures;
  in.spares = failures.spares >= 0 ? failures.spares : std::max(0, cluster_nodes - nodes);
  in.replications = run.replications;
  in.seed = seed;
  in.timeline = true;  // the report's trace draws replication 0
  s.inputs.failures = failures;
  const double mtbf = run_mtbf_s(failures, in.units);
  if (checkpoint && tier != nullptr) {
    s.checkpoint = train::checkpoint_size(spec, step.memory, node.gpus, checkpoint->sharded);
    const train::CheckpointSize& size = *s.checkpoint;
    const double capacity = tier->capacity_bytes;  // per node for local_nvme
    const double stored = tier->per_node() ? size.bytes_per_writing_node : size.bytes;
    if (capacity > 0 && stored > capacity) {
      throw RunSetupError("storage." + tier->name + ".capacity",
                          "room for one checkpoint of " + tb(stored) + (tier->per_node() ? " per node" : ""),
                          "a tier of " + tb(capacity));
    }
    const TierTransfer write = transfer(*tier, cluster, nodes, {{size.writing_nodes, size.bytes_per_writing_node}},
                                        true, seed, checkpoint_write_requests(size));
    s.write_s = write.seconds;
    s.restore_s = checkpoint_times(*tier, cluster, nodes, size, spec.gpus, seed).restore_s;
    if (checkpoint->async) {
      s.block_s = size.bytes_per_writing_gpu / node.pcie_bytes_per_s;
      s.drain_s = s.write_s;
      if (tier->on_fabric() && step_on) {
        // The steps behind the drain run on what it leaves of the links: a step of drain_step_s
        // does step_seconds of work, so the drain's span loses (1 - step / drain_step) of itself.
        s.drain_link_load = write.link_load;
        s.drain_step_s = step_on(storage::sharing_links(cluster, write.link_load));
        if (s.drain_step_s > step.step_seconds) {
          s.drain_slowdown_s = s.drain_s * (1 - step.step_seconds / s.drain_step_s);
          s.block_s += s.drain_slowdown_s;
        }
      }
    } else {
      s.block_s = s.write_s;
    }
    s.young_s = young_interval_s(s.block_s, mtbf);
    s.daly_s = daly_interval_s(s.block_s, mtbf);
    // Auto: Daly's interval in whole steps; none at all when nothing fails.
    const double auto_steps = std::round(s.daly_s / (step.step_seconds + data_stall_s));
    s.interval_steps = !checkpoint->auto_interval  ? checkpoint->interval
                       : std::isfinite(auto_steps) ? static_cast<int>(std::clamp(auto_steps, 1.0, 1e9))
                                                   : 0;
    in.checkpoint_interval = s.interval_steps;
    in.checkpoint_block_ns = ns(s.block_s);
    in.checkpoint_drain_ns = ns(s.drain_s);
    in.checkpoint_write_ns = ns(s.write_s);
    in.restore_ns = ns(s.restore_s);
  }
  return s;
}

}  // namespace fathom::rel
