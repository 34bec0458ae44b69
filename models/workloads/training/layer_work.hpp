// What one rank computes and communicates for one micro-batch: the kernels (FLOPs and HBM
// bytes, timed by models/compute/roofline.hpp) and the collectives inside a phase, for a
// transformer layer, the input embedding and the output layer (logits and loss). Phases are
// forward, backward, and the forward work redone in backward under recomputation.
//
// Conventions (docs/training.md derives each count):
//   - activations and weights move in 2-byte BF16 (FP8 runs GEMMs only in FP8, as NVIDIA's
//     Transformer Engine does; activations stay BF16);
//   - tensor parallelism splits every GEMM and the attention heads t ways; with sequence
//     parallelism the element-wise kernels see 1/t of the tokens and each all-reduce becomes
//     a reduce-scatter plus an all-gather of the same total bytes;
//   - context parallelism splits the sequence cp ways (ring attention: each rank's queries
//     meet every key, K/V blocks travel around the CP ring, overlapped with attention);
//   - MoE routes each token to top_k experts; experts are spread over ep ranks and tokens
//     travel there and back by all-to-all (dispatch and combine).
#pragma once

#include <string_view>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/compute/roofline.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

enum class CommGroup { kTp, kCp, kEp };

struct CommCall {
  CommGroup group = CommGroup::kTp;
  coll::Op op = coll::Op::kAllReduce;
  double bytes = 0;  // NCCL's convention for `op` (algorithms.hpp)
  // Ring attention's K/V exchange hides behind one block of attention; every other call
  // blocks the compute stream (exposed in full) unless it pipelines with a GEMM.
  bool overlaps_attention = false;
  // The GEMM a sequence-parallel all-gather feeds or a reduce-scatter drains (its kernels by
  // this name in the same phase): with parallel.tp_overlap the two run pipelined in chunks
  // (tp_overlap.hpp). Empty: nothing to pipeline with.
  std::string_view gemm;
};

struct Phase {
  std::vector<compute::Kernel> kernels;
  std::vector<CommCall> comms;
};

struct LayerWork {
  Phase forward;
  Phase backward;   // without recomputation
  Phase recompute;  // forward work redone before backward (empty without recomputation)
};

// The name of Transformer Engine's cast-transpose kernel before an FP8 GEMM (the breakdown
// counts it apart from the other memory-bound kernels).
inline constexpr std::string_view kFp8CastKernel = "fp8_cast_transpose";

// One transformer layer, one micro-batch, one rank.
LayerWork transformer_layer_work(const TrainingSpec& spec);
// The input embedding (first pipeline stage) and the output layer with the loss (last stage).
LayerWork embedding_work(const TrainingSpec& spec);
LayerWork output_layer_work(const TrainingSpec& spec);

// FLOPs of one token through one layer's forward (the model's, independent of parallelism):
// QKV and output projections, attention scores and values over the full sequence (as
// Megatron counts them), and the MLP (top_k experts plus the router for MoE).
double layer_forward_flops_per_token(const TransformerSpec& model, int sequence);
// The attention-core share of it (scores and values): what selective recomputation redoes.
double attention_core_flops_per_token(const TransformerSpec& model, int sequence);
// The output layer's forward FLOPs per token: 2 h V.
double logits_forward_flops_per_token(const TransformerSpec& model);

struct StepFlops {
  double model = 0;     // Megatron's model FLOPs, no recomputation
  double hardware = 0;  // what the GPUs execute, recomputed forward passes included
};
// Per step, all GPUs together. For GPT-style models `model` is Megatron's
// 72 B s l h^2 (1 + s/(6h) + V/(16 l h)) and `hardware` with full recomputation its 96 B s l h^2 (...).
StepFlops step_flops(const TrainingSpec& spec);

}  // namespace fathom::train
