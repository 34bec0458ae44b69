#include "models/workloads/inference/serving_spec.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::infer {

namespace {

using params::Quantity;
using P = params::Parameter<ServingSpec>;

constexpr std::string_view kVllm = "vLLM's default (EngineArgs)";
constexpr std::string_view kChoiceOfScenario = "none: the deployment's choice";

}  // namespace

const std::vector<P>& serving_parameters() {
  static const std::vector<P> declared = {
      {"tp", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, tp),
       "GPUs of one replica, tensor parallel over the node's NVLink; divides the model's heads and ffn_hidden and "
       "at most the node's GPUs",
       kChoiceOfScenario},
      {"pp", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, pp),
       "pipeline stages of one replica, each of tp GPUs, the layers split evenly (the first stages one more when "
       "they do not divide); a replica's tp x pp GPUs fill a share of one node or whole consecutive nodes. It runs "
       "pp virtual engines (vLLM V0's pipeline parallelism), each with its own batch and 1/pp of the KV cache, "
       "whose iterations pass every stage and send the activations between them",
       kChoiceOfScenario},
      {"weights",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ServingSpec, weights, hw::Precision::kBf16, hw::Precision::kFp8),
       "weight precision: bf16, or fp8 (1-byte weights, GEMMs at the FP8 peak; the output layer stays BF16)",
       kChoiceOfScenario,
       {},
       "bf16 fp8"},
      {"kv_cache",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ServingSpec, kv, hw::Precision::kBf16, hw::Precision::kFp8),
       "KV-cache precision: bf16, or fp8 (1-byte keys and values: twice the tokens in the same memory)",
       kVllm,
       {},
       "bf16 fp8"},
      {"max_seqs", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, max_seqs),
       "requests in one iteration's batch, at most (vLLM's max_num_seqs)", kVllm},
      {"max_batched_tokens", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, max_batched_tokens),
       "tokens one iteration processes, at most: the chunked-prefill token budget (vLLM's max_num_batched_tokens); "
       "without chunked prefill, at least the longest prompt",
       "vLLM V1's default for its OpenAI-compatible server on a GPU of 70 GiB or more"},
      {"chunked_prefill", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ServingSpec, chunked_prefill),
       "split prompts into chunks that share iterations with decodes (Sarathi-Serve); false: an iteration is "
       "either whole prompts or decodes, prompts first (vLLM V0's scheduler)",
       "vLLM V1's default (always on)"},
      {"prefill_batching",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ServingSpec, prefill_batching, PrefillBatching::kSeparate, PrefillBatching::kMixed),
       "without chunked prefill, what an iteration that admits whole prompts also runs: separate (nothing: the "
       "prompts alone, vLLM V0) or mixed (the running sequences' decodes first, then the whole prompts that fit the "
       "remaining token budget: TensorRT-LLM's in-flight batching without chunked context)",
       "vLLM V0's scheduler",
       {},
       "separate mixed"},
      {"kv_reservation",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ServingSpec, kv_reservation, KvReservation::kOnDemand, KvReservation::kFull),
       "when a request's KV blocks are taken: on-demand (as its tokens arrive; a full cache preempts the latest "
       "admitted sequence: vLLM, TensorRT-LLM's MAX_UTILIZATION) or full (at admission, for its prompt and its "
       "whole output, so it waits until they are free and is never preempted: TensorRT-LLM's default "
       "GUARANTEED_NO_EVICT); a request's output length stands for the max_tokens it was sent with",
       "vLLM's behaviour",
       {},
       "on-demand full"},
      {"batch_size_tuning", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ServingSpec, batch_size_tuning),
       "TensorRT-LLM's dynamic batch-size tuning: each iteration's request cap is max_seqs or, when lower, the "
       "requests the KV cache holds at the mean length of the last 128 requests, as its table maps them (below "
       "144, 336, 672, 832, 1,280 and 1,664: 128, 256, 512, 768, 1,024 and 1,536; above, the multiple of 512 below "
       "when within 128 of it)",
       "off: vLLM has none (trtllm-bench turns it on: DynamicBatchConfig, executor/dynamicBatchTuner.cpp)"},
      {"block_tokens", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, block_tokens),
       "tokens per KV-cache block (PagedAttention); a sequence holds whole blocks", kVllm},
      {"memory_utilization",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(ServingSpec, memory_utilization),
       "share of each GPU's HBM the engine takes for weights, activations and the KV cache (vLLM's "
       "gpu_memory_utilization); the runtime reserve comes off it",
       kVllm,
       {},
       {},
       true},
      {"kv_free_fraction", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ServingSpec, kv_free_fraction),
       "TensorRT-LLM's kv_cache_free_gpu_mem_fraction: the KV cache takes this share of the HBM the weights, the "
       "activations and the runtime reserve leave; 0: memory_utilization sizes it instead",
       "0: vLLM's sizing (TensorRT-LLM's own default is 0.9)"},
      {"iteration_overhead", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServingSpec, iteration_overhead_s),
       "host-side time per iteration that the GPU waits for (scheduling, input preparation, detokenisation); 0: "
       "hidden behind the GPU, as engines with CUDA graphs and asynchronous scheduling do",
       "none: an engine's own figure, for calibration"},
      {"sequence_overhead", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServingSpec, sequence_overhead_s),
       "host-side time per sequence in an iteration's batch that the GPU waits for, beside `iteration_overhead`: "
       "scheduling the sequence, preparing its inputs, sampling and detokenising its token "
       "([inference.md](inference.md#host-overhead-per-iteration) gives vLLM's, from Vidur's profiles); 0: hidden",
       "none: an engine's own figure (0 for engines that overlap the host's work with the GPU's)"},
      {"stragglers.enabled", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ServingSpec, stragglers.enabled),
       "each iteration's GPU kernels run at the pace of the slowest of a stage's tp GPUs: 1 + sigma e_tp times the "
       "nominal, e_tp the expected maximum of tp standard normals, sigma = sqrt(`speed_spread`^2 + `jitter`^2) "
       "([inference.md](inference.md#stragglers)); `false` for exact what-ifs at nominal speed",
       "every tensor-parallel iteration waits for its slowest GPU"},
      {"stragglers.speed_spread",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(ServingSpec, stragglers.speed_spread),
       "coefficient of variation of GPU speed across GPUs of one SKU (each GPU's own pace)",
       "Sinha et al., SC'22: 8% average variation across a cluster's GPUs, read as +-2.7 sigma: 1.5%",
       {},
       {},
       false,
       0.5},
      {"stragglers.jitter",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(ServingSpec, stragglers.jitter),
       "coefficient of variation of one GPU's kernel time from iteration to iteration, independent across GPUs",
       "no published per-GPU figure at hand: 0 unless measured",
       {},
       {},
       false,
       0.5},
      {"preemption",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ServingSpec, preemption, Preemption::kRecompute, Preemption::kSwap),
       "what a sequence preempted for want of KV blocks loses: recompute (its cache is dropped and rebuilt from its "
       "prompt and tokens) or swap (its blocks go to host memory over PCIe and come back when there is room; "
       "recompute when swap_space is full)",
       "vLLM V1 recomputes only; V0 offered both (preemption_mode)",
       {},
       "recompute swap"},
      {"swap_space", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(ServingSpec, swap_bytes),
       "host memory per GPU that holds swapped blocks (preemption: swap)", "vLLM V0's swap_space default, 4 GiB"},
      {"replicas", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServingSpec, replicas),
       "replicas of the model, each on tp GPUs of one node; at most what the cluster holds", kChoiceOfScenario},
      {"routing",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(ServingSpec, routing),
       "which replica a request goes to: round-robin; least-outstanding (fewest requests admitted and not "
       "finished); or kv-aware (fewest prompt tokens held by its unfinished requests: the KV cache a router can "
       "know of without the answers' lengths); ties to the lowest replica",
       "round-robin: Kubernetes Services' and most load balancers' default",
       {},
       "round-robin least-outstanding kv-aware"},
  };
  return declared;
}

std::int64_t batch_size_tuned(std::int64_t capacity) {
  constexpr std::pair<std::int64_t, std::int64_t> kTable[] = {{144, 128}, {336, 256},   {672, 512},
                                                              {832, 768}, {1280, 1024}, {1664, 1536}};
  for (const auto& [below, size] : kTable) {
    if (capacity < below) return size;
  }
  const std::int64_t multiple = capacity / 512 * 512;
  return capacity < multiple + 128 ? multiple : capacity;
}

double element_bytes(hw::Precision precision) {
  switch (precision) {
    case hw::Precision::kFp8:
      return 1;
    case hw::Precision::kBf16:
      return 2;
    case hw::Precision::kFp32:
    case hw::Precision::kTf32:
      return 4;
  }
  return 2;
}

KvBudget kv_budget(const ServingSpec& spec, const train::TransformerSpec& model,
                   const hw::AcceleratorSpec& accelerator) {
  KvBudget b;
  const double tp = spec.tp;
  const double share = spec.kv_free_fraction > 0 ? 1.0 : spec.memory_utilization;
  b.usable_bytes = accelerator.hbm_bytes * share - accelerator.runtime_reserve_bytes;
  // Every layer's weights at the weight precision, sharded over tp; the embedding and the
  // output layer in 16 bits (vocabulary-parallel), as FP8 checkpoints keep them.
  const int layers = stage_layers(model, spec.pp);
  const double layer_params = train::layer_parameter_count(model) * layers;
  // The embedding and the output layer, with the final norm: on the first and the last stage, so
  // with pp > 1 the largest stage holds the larger of the two.
  double other_params = train::parameter_count(model) - train::layer_parameter_count(model) * model.layers;
  if (spec.pp > 1) other_params = model.tied_embeddings ? other_params : other_params / 2;
  b.weight_bytes = (layer_params * element_bytes(spec.weights) + other_params * 2.0) / tp;
  // The largest iteration's activations (vLLM sizes the cache after profiling a forward pass of
  // max_num_batched_tokens): the MLP's up projection and its activation, a few hidden-wide
  // buffers (residual, norm output, attention output, all-reduce buffer), all in 16 bits, and the
  // FP32 logits of max_seqs rows.
  const double up =
      (model.mlp == train::MlpKind::kSwiGlu ? 3.0 : 2.0) * std::max(model.ffn_hidden, train::dense_ffn(model)) / tp;
  b.activation_bytes = static_cast<double>(spec.max_batched_tokens) * (up + 4.0 * model.hidden) * 2.0 +
                       static_cast<double>(spec.max_seqs) * std::ceil(static_cast<double>(model.vocab) / tp) * 4.0;
  b.kv_bytes = b.usable_bytes - b.weight_bytes - b.activation_bytes;
  if (spec.kv_free_fraction > 0 && b.kv_bytes > 0) b.kv_bytes *= spec.kv_free_fraction;
  const double kv_heads = std::max(1.0, static_cast<double>(model.kv_heads) / tp);
  b.bytes_per_token = 2.0 * kv_heads * train::attention_head_dim(model) * element_bytes(spec.kv) * layers;
  const double block = b.bytes_per_token * spec.block_tokens;
  b.blocks = b.kv_bytes > 0 ? static_cast<std::int64_t>(std::floor(b.kv_bytes / block)) : 0;
  return b;
}

}  // namespace fathom::infer
