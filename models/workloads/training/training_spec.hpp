// TrainingSpec: one training run as the step model sees it: the model, the batch, the
// precision, and the parallel strategy with its schedule, ZeRO stage, recomputation and rank
// rank mapping. Plain values; the scenario loader fills them from `workload:` (kind: training).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/stragglers.hpp"
#include "models/workloads/training/transformer.hpp"

namespace fathom::train {

enum class Recompute {
  kNone,       // keep every activation
  kSelective,  // recompute the attention core only (Korthikanti et al. 2022)
  kFull,       // keep each layer's input, recompute the whole layer's forward in backward
};

// How context parallelism exchanges keys and values.
enum class CpComm {
  kRing,       // ring attention: K/V blocks passed around the CP ring, hidden behind attention
  kAllGather,  // Llama 3's: K/V all-gathered before attention, dK/dV reduce-scattered after
};

// How each micro-batch's weight gradients reach the gradient buffer that is reduced across
// replicas (docs/training.md, "Gradient accumulation").
enum class GradAccumulation {
  kFused,  // the weight-gradient GEMM adds into the buffer in its epilogue (Megatron-LM since 2022)
  kFp32,   // a separate add of the 16-bit gradient into an FP32 buffer: 2 + 4 + 4 bytes per weight
  // the 16-bit gradient cast to an FP32 temporary (2 + 4), then added to the FP32 buffer (4 + 4 + 4)
  kFp32Cast,
  kBf16,  // a separate add into a 16-bit buffer: 2 + 2 + 2 bytes per weight
  // PyTorch's own accumulation into a parameter's 16-bit .grad: the first micro-batch's gradient
  // is kept as it is, each later one added (as kBf16)
  kAutograd,
};

// How the linear layers of a model with biases (GPT-style, GeLU MLP) apply each bias and reduce
// its gradient (docs/training.md, "Biases").
enum class LinearBias {
  kFused,     // in the GEMM's epilogue, forward and backward (cuBLASLt; Transformer Engine)
  kSeparate,  // Megatron-LM's own layers on 2021 PyTorch: a bias add after QKV, a reduction per gradient
};

enum class Schedule {
  kOneFOneB,     // PipeDream-Flush 1F1B
  kInterleaved,  // Megatron's interleaved 1F1B with virtual_stages model chunks per GPU
};

// Parallel dimensions in rank-mapping order, innermost (closest ranks, same NVLink island) first.
enum class Dim { kTp, kCp, kEp, kPp, kDp };
inline constexpr std::size_t kDims = 5;

struct ParallelSpec {
  int tp = 1;
  int pp = 1;
  int cp = 1;
  CpComm cp_comm = CpComm::kRing;
  int ep = 1;                     // expert parallelism, carved out of the data-parallel ranks (ep divides dp)
  int dp = 1;                     // derived: gpus / (tp * pp * cp)
  bool sequence_parallel = true;  // TP with sequence parallelism (reduce-scatter + all-gather)
  Schedule schedule = Schedule::kOneFOneB;
  int virtual_stages = 1;  // model chunks per GPU for the interleaved schedule
  // Pipeline layout (pipeline_layout() resolves it). At most one of stage_layers and
  // chunk_layers is given; the *_in_split flags apply to the even split only.
  std::vector<int> stage_layers;  // transformer layers per pipeline stage; empty: as even as possible
  std::vector<int> chunk_layers;  // per virtual stage in model order (pp * virtual_stages entries)
  // Megatron-LM's account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split:
  // the even split counts the input embedding (the output layer and loss) as one more layer, so
  // the first (last) virtual stage holds one transformer layer fewer, or only the embedding.
  bool embedding_in_split = false;
  bool loss_in_split = false;
  int zero_stage = 1;  // 0: plain DP; 1: optimizer state sharded (distributed optimizer); 2: + grads; 3: + weights
  double bucket_bytes = 40e6 * 4;  // gradient bucket (Megatron DDP: 40M elements)
  double grad_reduce_bytes = 4;    // bytes per gradient element reduced: FP32 main gradients, or 2 (BF16/FP16)
  GradAccumulation grad_accumulation = GradAccumulation::kFused;
  bool overlap_grad_reduce = true;   // bucketed gradient reduction overlapped with the last backward
  bool overlap_param_gather = true;  // ZeRO >= 1: parameter all-gather overlapped with the next forward
  bool overlap_p2p = false;          // pipeline sends beside compute (false: the sender waits, as Megatron's 1F1B)
  // Sequence-parallel all-gathers and reduce-scatters pipelined with their GEMMs in tp chunks
  // (Transformer Engine userbuffers, Megatron-LM's tp_comm_overlap; tp_overlap.hpp).
  bool tp_overlap = false;
  int zero_prefetch = 1;  // ZeRO-3: modules whose parameters are gathered ahead (FSDP's prefetch of 1)
  std::array<Dim, kDims> order{Dim::kTp, Dim::kCp, Dim::kEp, Dim::kPp, Dim::kDp};
};

struct TrainingSpec {
  TransformerSpec model;
  ParallelSpec parallel;
  int gpus = 0;                                    // GPUs the run uses (<= the cluster's)
  int sequence = 2048;                             // tokens per sample
  int global_batch = 0;                            // samples per step
  int micro_batch = 1;                             // samples per micro-batch per data-parallel replica
  hw::Precision precision = hw::Precision::kBf16;  // GEMM precision (FP8: GEMMs only, as Transformer Engine)
  // FP8 only: the linear layers' weights live in FP8 alone, with no 16-bit copy (Transformer
  // Engine's fp8_model_init; NeMo's `fp8_params`, Megatron-LM's `--fp8-param-gather`), and the
  // distributed optimizer gathers them in FP8.
  bool fp8_params = false;
  Recompute recompute = Recompute::kSelective;
  bool flash_attention = true;  // fused attention: no s x s scores in memory
  LinearBias linear_bias = LinearBias::kFused;
  double tokens = 0;                 // token budget for time-to-train (0: not asked)
  double max_memory_fraction = 1.0;  // usable share of HBM
  StragglerSpec stragglers;          // the step waits for its slowest rank (stragglers.hpp)

  int micro_batches() const { return global_batch / (micro_batch * parallel.dp); }  // per replica per step
};

// Checks the strategy against the model, the batch and the GPU count; throws
// std::invalid_argument with a message naming the key (e.g. "parallel.tp: ...").
void check(const TrainingSpec& spec);

// Transformer layers of every virtual stage, in model order: virtual stage c * pp + s is model
// chunk c of pipeline stage s. Resolved from chunk_layers, or stage_layers split evenly into
// each stage's chunks (the first chunks taking one more), or an even split of the layers (plus
// the embedding and loss when they count) over the virtual stages, the remainder going to the
// middle ones, away from the embedding and the output layer. A first (last) virtual stage may
// hold no transformer layer when it holds the embedding (the output layer).
std::vector<int> pipeline_layout(const TrainingSpec& spec);

// Transformer layers of each pipeline stage: the sum of its chunks in pipeline_layout().
std::vector<int> stage_layers(const TrainingSpec& spec);

}  // namespace fathom::train
