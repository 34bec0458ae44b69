// ServingSpec: one inference service as the serving model sees it: how each replica runs the
// model (tensor parallelism, weight and KV-cache precision, the scheduler's batch limits, the
// paged KV cache) and how many replicas the router spreads requests over. Plain values; the
// scenario loader fills them from `workload.serving` (kind: inference), docs/inference.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/params/parameter.hpp"
#include "models/workloads/training/stragglers.hpp"
#include "models/workloads/training/transformer.hpp"

namespace fathom::infer {

// What a preempted sequence loses (vLLM V0's two modes; V1 recomputes only).
enum class Preemption {
  kRecompute,  // its cache is dropped; it processes its prompt and its tokens again
  kSwap,       // its blocks are copied to host memory over PCIe and back when there is room
};

// When a request's KV-cache blocks are taken.
enum class KvReservation {
  kOnDemand,  // as its tokens arrive; a full cache preempts the latest admitted sequence (vLLM;
              // TensorRT-LLM's MAX_UTILIZATION)
  kFull,      // at admission, for its prompt and its whole output: admitted only when they are free,
              // never preempted (TensorRT-LLM's GUARANTEED_NO_EVICT)
};

// Without chunked prefill: what an iteration that admits whole prompts also runs.
enum class PrefillBatching {
  kSeparate,  // nothing else: prompts alone, decodes only when no prompt is admitted (vLLM V0)
  kMixed,     // the running sequences' decodes, then whole prompts that fit the remaining token
              // budget (TensorRT-LLM's in-flight batching without chunked context)
};

// Which replica a new request goes to.
enum class Routing {
  kRoundRobin,        // replica 0, 1, 2, ... in turn
  kLeastOutstanding,  // the replica with the fewest requests admitted and not finished (ties: lowest index)
  kKvAware,           // the replica whose unfinished requests hold the fewest prompt tokens (ties: lowest index)
};

struct ServingSpec {
  int tp = 1;  // GPUs of one pipeline stage, tensor parallel over NVLink
  int pp = 1;  // pipeline stages of one replica: pp virtual engines, each with 1/pp of the cache
  hw::Precision weights = hw::Precision::kBf16;  // FP8: 1-byte weights and GEMMs at the FP8 peak
  hw::Precision kv = hw::Precision::kBf16;       // FP8: 1-byte keys and values
  int max_seqs = 256;                            // requests in one iteration's batch, at most
  int max_batched_tokens = 8192;                 // tokens one iteration processes, at most (prefill chunks + decodes)
  bool chunked_prefill = true;                   // prompts split into chunks that share iterations with decodes
  PrefillBatching prefill_batching = PrefillBatching::kSeparate;  // without chunked prefill
  KvReservation kv_reservation = KvReservation::kOnDemand;
  // TensorRT-LLM's dynamic batch-size tuning: each iteration's request cap is max_seqs or, when
  // lower, batch_size_tuned() of the requests the cache holds at the recent mean length.
  bool batch_size_tuning = false;
  int block_tokens = 16;            // tokens per KV-cache block (paged attention)
  double memory_utilization = 0.9;  // share of HBM the engine takes: weights, activations, KV cache
  // TensorRT-LLM's sizing instead (above 0): the KV cache takes this share of what the weights and
  // activations leave of HBM.
  double kv_free_fraction = 0;
  double iteration_overhead_s = 0;  // the engine's host-side cost per iteration, not hidden
  // ... and per sequence in the iteration's batch (scheduling it, preparing its inputs, sampling
  // and detokenising its token), not hidden: the host's share that grows with the batch.
  double sequence_overhead_s = 0;
  // Every iteration waits for the slowest GPU of each pipeline stage: its tensor-parallel
  // all-reduces join the stage's tp GPUs, each at its own pace (training's model and defaults,
  // train::straggler_factor over tp ranks; stages run in turn, so each waits for its own slowest).
  train::StragglerSpec stragglers;
  Preemption preemption = Preemption::kRecompute;
  double swap_bytes = 4.0 * (1 << 30);  // host memory per GPU for swapped blocks
  int replicas = 1;
  Routing routing = Routing::kRoundRobin;
};

// The declared scalar keys of `workload.serving` (models/params/parameter.hpp).
const std::vector<params::Parameter<ServingSpec>>& serving_parameters();

// Bytes per element of a precision's weights or KV cache: 1 for FP8, 2 for BF16, 4 for the rest.
double element_bytes(hw::Precision precision);

// How the replica's HBM is shared, per GPU of its largest pipeline stage (bytes): what the engine
// may take (HBM x memory_utilization, less the runtime reserve), the weights' shard, the
// activation workspace of the largest iteration, and what is left for the KV cache (with
// kv_free_fraction, that share of it), in whole blocks: the tokens every stage holds for the
// replica's sequences, which its pp virtual engines share equally.
struct KvBudget {
  double usable_bytes = 0;
  double weight_bytes = 0;
  double activation_bytes = 0;
  double kv_bytes = 0;         // usable - weights - activations (may be negative: does not fit)
  double bytes_per_token = 0;  // one token's keys and values over every layer, on one GPU
  std::int64_t blocks = 0;     // whole blocks of block_tokens in kv_bytes (0 when it does not fit)
};

// The budget of one replica of `spec` running `model` on `accelerator`. Throws
// std::invalid_argument naming the key at fault when the serving spec and the model disagree
// (tp must divide heads and ffn_hidden).
KvBudget kv_budget(const ServingSpec& spec, const train::TransformerSpec& model,
                   const hw::AcceleratorSpec& accelerator);

// TensorRT-LLM's runtime batch size for a cache that holds `capacity` requests of the recent mean
// length (its executor's DynamicBatchTuner): below 144, 336, 672, 832, 1,280 and 1,664 requests,
// 128, 256, 512, 768, 1,024 and 1,536; above, the multiple of 512 below when within 128 of it, else
// the capacity itself.
std::int64_t batch_size_tuned(std::int64_t capacity);

// Requests whose mean length the tuner reads: the last this many a replica was given.
inline constexpr std::size_t kBatchTuningWindow = 128;

// Layers of the largest pipeline stage: ceil(layers / pp).
inline int stage_layers(const train::TransformerSpec& model, int pp) { return (model.layers + pp - 1) / pp; }

// Blocks a sequence of `tokens` tokens holds: ceil(tokens / block_tokens).
inline std::int64_t blocks_for(std::int64_t tokens, int block_tokens) {
  return (tokens + block_tokens - 1) / block_tokens;
}

}  // namespace fathom::infer
