#include "models/workloads/training/checkpoint.hpp"

#include <algorithm>

#include "models/workloads/training/transformer.hpp"

namespace fathom::train {

namespace {

constexpr double kWeightBytes = 2;      // BF16
constexpr double kOptimizerBytes = 12;  // FP32 master weights and two Adam moments

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

double CheckpointSize::restore_bytes() const {
  double total = 0;
  for (const StageRead& r : reads) total += r.nodes * r.bytes_per_node;
  return total;
}

CheckpointSize checkpoint_size(const TrainingSpec& spec, const MemoryReport& memory, int gpus_per_node, bool sharded) {
  CheckpointSize c;
  const ParallelSpec& p = spec.parallel;
  c.bytes = parameter_count(spec.model) * (kWeightBytes + kOptimizerBytes);
  const int gpus = spec.gpus;
  const int nodes = ceil_div(gpus, gpus_per_node);
  if (sharded) {
    c.writing_nodes = nodes;
    c.bytes_per_writing_node = c.bytes / nodes;
    c.bytes_per_writing_gpu = c.bytes / gpus;
  } else {
    const int model_parallel = p.tp * p.pp * p.cp;
    c.writing_nodes = ceil_div(model_parallel, gpus_per_node);
    c.bytes_per_writing_node = c.bytes / c.writing_nodes;
    c.bytes_per_writing_gpu = c.bytes / model_parallel;
  }
  // Restore: a rank reads its weights (all its data-parallel replicas read the same) and its
  // optimizer shard. A stage whose ranks fill whole nodes (Megatron keeps a stage's TP and CP
  // ranks, and its replicas, together) is a group of its own; smaller stages share nodes.
  const double weight_shards = p.zero_stage >= 3 ? static_cast<double>(p.dp) * p.cp : 1.0;
  const int stages = std::max<int>(1, static_cast<int>(memory.stages.size()));
  const int ranks_per_stage = gpus / stages;
  double shared_total = 0;
  for (const StageMemory& stage : memory.stages) {
    const double per_rank = kWeightBytes * stage.parameters / weight_shards + stage.optimizer;
    if (ranks_per_stage >= gpus_per_node) {
      c.reads.push_back({ranks_per_stage / gpus_per_node, per_rank * gpus_per_node});
    } else {
      shared_total += per_rank * ranks_per_stage;
    }
  }
  if (shared_total > 0) c.reads.push_back({nodes, shared_total / nodes});
  return c;
}

}  // namespace fathom::train
