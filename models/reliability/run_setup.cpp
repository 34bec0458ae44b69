#include "models/reliability/run_setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

}  // namespace

double tier_transfer_s(const storage::TierSpec& tier, const topo::NodeSpec& node,
                       const std::vector<train::CheckpointSize::StageRead>& groups, bool write) {
  const double drive = write ? tier.client_write_bytes_per_s() : tier.read_bytes_per_s;
  const double nics = node.nics * node.nic_bytes_per_s;
  std::vector<storage::ClientGroup> clients;
  // A client writing every copy itself (fanout: client) sends the amplified bytes over its NICs.
  const double cap = tier.per_node() ? drive : write ? nics / tier.client_write_traffic() : nics;
  for (const auto& g : groups) clients.push_back({g.nodes, g.bytes_per_node, cap});
  const double shared = tier.per_node() ? std::numeric_limits<double>::infinity() : drive;
  return static_cast<double>(tier.latency_ns) / 1e9 + storage::shared_transfer(clients, shared).seconds;
}

RunSetup plan_run(const RunSpec& run, const std::optional<train::CheckpointSpec>& checkpoint,
                  const storage::TierSpec* tier, const FailureSpec& failures, const train::TrainingSpec& spec,
                  const train::TrainingResult& step, double data_stall_s, const topo::NodeSpec& node, int cluster_nodes,
                  std::uint64_t seed) {
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
    s.write_s = tier_transfer_s(*tier, node, {{size.writing_nodes, size.bytes_per_writing_node}}, true);
    s.restore_s = tier_transfer_s(*tier, node, size.reads, false);
    if (checkpoint->async) {
      s.block_s = size.bytes_per_writing_gpu / node.pcie_bytes_per_s;
      s.drain_s = s.write_s;
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
