// A training checkpoint: what it holds, who writes it and who reads it back (docs/run.md).
//
// It holds the model state Megatron-LM saves with mixed precision and Adam: the BF16 weights
// (2 bytes per parameter) and the optimizer's FP32 master weights and two moments (12 bytes);
// gradients and activations are not saved. 14 bytes per parameter in all, once each.
//   - sharded (Megatron's fully parallel distributed checkpoint, PyTorch DCP): every GPU writes
//     an equal share, so every node writes total / nodes;
//   - gathered: the first data-parallel replica's ranks write their model-parallel shards with
//     the optimizer state gathered to them, from the fewest nodes that hold those ranks.
// On restore every rank reads what it holds: its weights (data-parallel replicas read the same
// ones) and its optimizer shard, as the memory model counts them per pipeline stage.
#pragma once

#include <vector>

#include "models/workloads/training/memory.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

struct CheckpointSpec {
  int interval = 1000;         // steps between checkpoints (with auto_interval: Young/Daly's)
  bool auto_interval = false;  // `interval: auto`
  bool async = false;          // block only for the copy to host memory, then drain
  bool sharded = true;         // false: gathered onto the first replica
  std::string tier;            // the storage tier written to (a name under `storage:`)
};

struct CheckpointSize {
  double bytes = 0;       // one checkpoint
  int writing_nodes = 0;  // nodes that write
  double bytes_per_writing_node = 0;
  double bytes_per_writing_gpu = 0;  // what one writing GPU copies to host memory (asynchronous)
  // A node's restore, by pipeline stage: nodes holding the stage's ranks and what each reads.
  struct StageRead {
    int nodes = 0;
    double bytes_per_node = 0;
  };
  std::vector<StageRead> reads;
  double restore_bytes() const;
};

// `memory`: step_memory() of the spec; `gpus_per_node` of the cluster's node.
CheckpointSize checkpoint_size(const TrainingSpec& spec, const MemoryReport& memory, int gpus_per_node, bool sharded);

}  // namespace fathom::train
