// Memory per rank: weights, gradients, optimizer state, activations and communication
// buffers, for each pipeline stage (stages hold different layers and different numbers of
// micro-batches in flight). docs/training.md gives each formula and its source.
//
//   - Mixed precision with Adam as Megatron-LM keeps it: BF16 weights (2 bytes per parameter),
//     FP32 main gradients (4) and FP32 master weights plus two moments (12): 18 bytes per
//     parameter; ZeRO-1 (the distributed optimizer) shards the 12 over data-parallel ranks,
//     ZeRO-2 the gradients too, ZeRO-3 the weights too.
//   - Activations per layer per micro-batch follow Korthikanti et al. 2022 ("Reducing
//     Activation Recomputation in Large Transformer Models"), generalised to GQA, SwiGLU and
//     MoE: s b h (34 + 5 a s / h) bytes for a GPT layer without parallelism; the 5 a s / h
//     score terms vanish with FlashAttention or selective recomputation; full recomputation
//     keeps only each layer's input (2 s b h); tensor parallelism with sequence parallelism
//     divides everything by t.
#pragma once

#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

// CUDA context, cuBLAS workspaces and NCCL's channel buffers: fathom's assumed fixed cost per GPU.
inline constexpr double kRuntimeReserveBytes = 2.0 * (1ULL << 30);

struct StageMemory {
  double parameters = 0;  // parameters this rank holds (before ZeRO-3 sharding)
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double communication = 0;  // gradient buckets and the runtime reserve
  double total() const { return weights + gradients + optimizer + activations + communication; }
};

struct MemoryReport {
  std::vector<StageMemory> stages;
  int peak_stage = 0;
  double peak_bytes = 0;
  double capacity_bytes = 0;  // HBM times the usable fraction
  bool fits = true;
};

// Parameters of one transformer layer held by one rank (TP and EP shards).
double layer_parameters_per_rank(const TrainingSpec& spec);
// Activation bytes one layer keeps for one micro-batch on one rank, recomputation applied.
double layer_activation_bytes(const TrainingSpec& spec);

// `in_flight[s]`: the most model chunks with stored activations stage s holds at once
// (peak_in_flight of the schedule).
MemoryReport memory_per_rank(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                             const std::vector<int>& in_flight);

}  // namespace fathom::train
