// Memory per rank: weights, gradients, optimizer state, activations, communication buffers and
// the runtime's reserve, for each pipeline stage (stages hold different layers and different
// numbers of micro-batches in flight). docs/training.md gives each formula and its source.
//
//   - Mixed precision with Adam as Megatron-LM keeps it: BF16 weights (2 bytes per parameter),
//     FP32 main gradients (4) and FP32 master weights plus two moments (12): 18 bytes per
//     parameter. ZeRO-1 (the distributed optimizer) shards the 12 over the data-parallel ranks,
//     ZeRO-2 the gradients too, ZeRO-3 the weights too. With context parallelism the CP ranks
//     hold the same weights, so Megatron shards over DP x CP.
//   - The main gradients are kept in the precision they are reduced in (`grad_reduce`: Megatron's
//     gradient buffer is FP32 with grad_reduce_in_fp32, the parameters' BF16 without): 4 or 2
//     bytes per parameter.
//   - FP8 (Transformer Engine): each linear layer also keeps an FP8 copy of its weight and the
//     transpose the backward GEMMs read (2 bytes per linear parameter); with `fp8_params`
//     (fp8_model_init) those are the weight itself and no BF16 copy is kept, so a linear
//     parameter takes 2 bytes instead of 4. The activations it saves for a linear layer are the
//     FP8 input and its transpose, the same 2 bytes per element as the BF16 input they replace.
//   - Activations per layer per micro-batch follow Korthikanti et al. 2022 ("Reducing
//     Activation Recomputation in Large Transformer Models"), generalised to GQA, SwiGLU and
//     MoE: s b h (34 + 5 a s / h) bytes for a GPT layer without parallelism; the 5 a s / h
//     score terms vanish with FlashAttention or selective recomputation; full recomputation
//     keeps only each layer's input (2 s b h); tensor parallelism with sequence parallelism
//     divides everything by t.
//   - In flight: walking a stage's schedule, every forward pass adds its model chunk's
//     activations and every backward pass frees them; the peak of that sum is the stage's
//     activation memory (Megatron's warm-up counts per model chunk, with uneven chunks counted
//     at their own size).
#pragma once

#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/pipeline_schedule.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

struct StageMemory {
  double parameters = 0;  // parameters this rank holds (before ZeRO-3 sharding)
  double weights = 0;     // BF16 weights, and the FP8 copies with FP8
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double communication = 0;  // gradient buckets
  double runtime = 0;        // the accelerator's runtime reserve
  double total() const { return weights + gradients + optimizer + activations + communication + runtime; }
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
// The part of them in the linear layers (all but the two norms): the weights FP8 runs cast.
double layer_linear_parameters_per_rank(const TrainingSpec& spec);
// Bytes one gather of `params` weights moves across the data-parallel ranks, `linear` of them in
// linear layers: 2 a parameter (BF16), 1 for a linear layer's with `fp8_params` (Megatron-LM's
// --fp8-param-gather).
double gathered_weight_bytes(const TrainingSpec& spec, double params, double linear);
// Parameters one rank holds for model chunk `chunk` of stage `stage` under `layout`
// (pipeline_layout()): its layers, plus the input embedding on the first virtual stage and the
// output layer on the last (with tied embeddings, a copy there when it is another stage).
double chunk_parameters(const TrainingSpec& spec, const std::vector<int>& layout, int stage, int chunk);
// Activation bytes one layer keeps for one micro-batch on one rank, recomputation applied.
double layer_activation_bytes(const TrainingSpec& spec);

// The peak of each stage's live activations under `schedule`, given the bytes one micro-batch
// leaves in chunk c of stage s: chunk_bytes[s][c].
std::vector<double> peak_activation_bytes(const std::vector<std::vector<PipelinePass>>& schedule,
                                          const std::vector<std::vector<double>>& chunk_bytes);

MemoryReport memory_per_rank(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                             const std::vector<std::vector<PipelinePass>>& schedule);

}  // namespace fathom::train
