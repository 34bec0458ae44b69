// The time of one iteration of a serving replica: one forward pass of the model over every
// sequence the scheduler put in the batch (prefill chunks and decodes together), on each of the
// replica's tensor-parallel GPUs at once. A roofline per kernel (models/compute/roofline.hpp):
//   - linear layers: GEMMs of the batch's T tokens by each weight shard, timed by the
//     accelerator's GEMM model (the tile model where calibrated): with few tokens they are bound by
//     reading the weights from HBM, with many by the FLOPs (prefill);
//   - attention: one fused kernel per layer over the batch, its FLOPs those of the query-key pairs
//     (causal within a chunk) at the attention efficiency, its bytes the keys and values it reads
//     from the cache at the HBM efficiency;
//   - element-wise kernels (vLLM's Llama layer: two fused residual-add RMSNorms, the rotary
//     embedding, the gated activation), each its traffic plus the kernel overhead;
//   - with tp > 1, two all-reduces per layer of the batch's activations over NVLink, timed by the
//     collective model (a function of the bytes, given);
//   - the output layer over the rows that sample a token, and one sampling kernel;
//   - with pp > 1, the batch's activations sent from each stage to the next (a function of the
//     bytes, given): an iteration of a virtual engine passes every stage in turn;
//   - the accelerator's fixed latency per layer (AcceleratorSpec::layer_latency_s; 0 on GPUs);
//   - the kernels' wait for the slowest of a stage's tp GPUs (train::straggler_factor over tp
//     ranks): the all-reduces join them, so the stage's kernels run at its slowest GPU's pace.
// docs/inference.md gives each count; the tests check them against hand sums.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "models/workloads/training/transformer.hpp"

namespace fathom::infer {

// What one iteration processes, summed over its sequences. A sequence with p tokens already in
// the cache that processes n more contributes n tokens, n p + n (n + 1) / 2 query-key pairs
// (causal attention within its chunk) and p + n tokens of keys and values read.
struct IterationWork {
  std::int64_t tokens = 0;     // T: rows through every linear layer
  std::int64_t sequences = 0;  // sequences in the batch
  std::int64_t logits = 0;     // sequences that sample a token at the end of this iteration
  double attention_pairs = 0;  // query-key pairs, over every sequence
  double kv_read_tokens = 0;   // cached tokens attention reads, over every sequence
};

// Where an iteration's time goes (seconds).
struct IterationTime {
  double gemm = 0;  // the layers' linear layers
  double attention = 0;
  double elementwise = 0;    // norms, rotary embedding, activation (their overheads included)
  double communication = 0;  // tensor-parallel all-reduces
  double pipeline = 0;       // activations sent between pipeline stages
  double output = 0;         // output layer and sampling
  double overhead = 0;       // the host's cost: iteration_overhead_s + sequence_overhead_s x sequences
  double swap = 0;           // copying swapped blocks between HBM and host memory
  double latency = 0;        // the accelerator's fixed time per layer (a wafer's dataflow latency)
  double straggler = 0;      // the kernels' wait for the slowest GPU of each stage (ServingSpec::stragglers)
  double total() const {
    return gemm + attention + elementwise + communication + pipeline + output + overhead + swap + latency + straggler;
  }
  IterationTime& operator+=(const IterationTime& o) {
    gemm += o.gemm;
    attention += o.attention;
    elementwise += o.elementwise;
    communication += o.communication;
    pipeline += o.pipeline;
    output += o.output;
    overhead += o.overhead;
    swap += o.swap;
    latency += o.latency;
    straggler += o.straggler;
    return *this;
  }
};

// Seconds one all-reduce of `bytes` (per GPU, NCCL's convention) takes over the replica's GPUs.
using AllReduceTime = std::function<double(double bytes)>;
// Seconds the pp - 1 sends of `bytes` of activations from each pipeline stage to the next take, in
// turn, over the links between the stages' GPUs.
using StageSendsTime = std::function<double(double bytes)>;

class IterationModel {
 public:
  // `all_reduce` is called only when spec.tp > 1, `stage_sends` only when spec.pp > 1. Throws
  // std::invalid_argument when tp does not divide the model's heads or ffn_hidden, or pp exceeds
  // its layers.
  IterationModel(const ServingSpec& spec, const train::TransformerSpec& model, const hw::AcceleratorSpec& accelerator,
                 AllReduceTime all_reduce, StageSendsTime stage_sends = nullptr);

  IterationTime time(const IterationWork& work) const;
  double seconds(const IterationWork& work) const { return time(work).total(); }

  // One token's keys and values in one layer on one GPU (bytes): 2 x kv heads held x head dim x
  // the KV precision's bytes. A GPU holds kv_heads / tp heads, and one head when tp > kv_heads
  // (the heads are then replicated).
  double kv_bytes_per_token_layer() const { return kv_bytes_per_token_layer_; }

 private:
  double layer_gemms(std::int64_t tokens) const;  // one layer's linear layers, memoized by tokens
  double output_layer(std::int64_t rows) const;   // memoized by rows

  ServingSpec spec_;
  train::TransformerSpec model_;
  hw::AcceleratorSpec accelerator_;
  AllReduceTime all_reduce_;
  StageSendsTime stage_sends_;
  double kv_bytes_per_token_layer_ = 0;
  double heads_per_gpu_ = 0;
  int head_dim_ = 0;
  double straggler_factor_ = 1;              // train::straggler_factor(spec.stragglers, tp)
  mutable std::vector<double> gemm_memo_;    // by tokens; < 0: not yet computed
  mutable std::vector<double> output_memo_;  // by rows
};

// Tensor-parallel all-reduce bytes of one layer's output for `tokens` tokens (activations in 16
// bits): tokens x hidden x 2.
double activation_bytes(const train::TransformerSpec& model, std::int64_t tokens);

}  // namespace fathom::infer
