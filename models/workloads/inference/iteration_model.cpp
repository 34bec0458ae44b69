#include "models/workloads/inference/iteration_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/compute/roofline.hpp"

namespace fathom::infer {

double activation_bytes(const train::TransformerSpec& model, std::int64_t tokens) {
  return static_cast<double>(tokens) * model.hidden * 2.0;
}

IterationModel::IterationModel(const ServingSpec& spec, const train::TransformerSpec& model,
                               const hw::AcceleratorSpec& accelerator, AllReduceTime all_reduce,
                               StageSendsTime stage_sends)
    : spec_(spec),
      model_(model),
      accelerator_(accelerator),
      all_reduce_(std::move(all_reduce)),
      stage_sends_(std::move(stage_sends)) {
  train::check(model_);
  if (spec_.pp < 1 || spec_.pp > model_.layers) {
    throw std::invalid_argument("pp: expected at most the model's " + std::to_string(model_.layers) +
                                " layers, found " + std::to_string(spec_.pp));
  }
  if (spec_.pp > 1 && !stage_sends_) throw std::invalid_argument("pp: a pipeline needs its stages' send time");
  if (spec_.tp < 1 || model_.heads % spec_.tp != 0) {
    throw std::invalid_argument("tp: expected a divisor of the model's heads (" + std::to_string(model_.heads) +
                                "), found " + std::to_string(spec_.tp));
  }
  for (const int ffn : {model_.ffn_hidden, train::dense_ffn(model_)}) {
    if (ffn % spec_.tp != 0) {
      throw std::invalid_argument("tp: expected a divisor of the model's MLP width (" + std::to_string(ffn) +
                                  "), found " + std::to_string(spec_.tp));
    }
  }
  straggler_factor_ = train::straggler_factor(spec_.stragglers, spec_.tp);
  head_dim_ = train::attention_head_dim(model_);
  heads_per_gpu_ = static_cast<double>(model_.heads) / spec_.tp;
  const double kv_heads_per_gpu = std::max(1.0, static_cast<double>(model_.kv_heads) / spec_.tp);
  kv_bytes_per_token_layer_ = 2.0 * kv_heads_per_gpu * head_dim_ * element_bytes(spec_.kv);
  // Memoized up to a bound, so that an extreme limit does not allocate beyond reason.
  constexpr std::int64_t kMemo = std::int64_t{1} << 16;
  gemm_memo_.assign(static_cast<std::size_t>(std::min<std::int64_t>(spec_.max_batched_tokens, kMemo)) + 1, -1.0);
  output_memo_.assign(static_cast<std::size_t>(std::min<std::int64_t>(spec_.max_seqs, kMemo)) + 1, -1.0);
}

double IterationModel::layer_gemms(std::int64_t tokens) const {
  if (tokens <= 0) return 0;
  const bool memo = tokens < static_cast<std::int64_t>(gemm_memo_.size());
  if (memo && gemm_memo_[static_cast<std::size_t>(tokens)] >= 0) return gemm_memo_[static_cast<std::size_t>(tokens)];
  const double wbytes = element_bytes(spec_.weights);
  const std::int64_t h = model_.hidden;
  const std::int64_t tp = spec_.tp;
  const std::int64_t kv = train::kv_dim(model_);
  // The weights' shards (column-parallel Q/K/V and MLP up, row-parallel output and MLP down); the
  // K and V columns are replicated when tp exceeds the KV heads.
  const std::int64_t qkv_cols = h / tp + 2 * std::max<std::int64_t>(kv / tp, head_dim_);
  const std::int64_t ffn = model_.ffn_hidden / tp;
  const bool gated = model_.mlp == train::MlpKind::kSwiGlu;
  const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    compute::Kernel kernel;
    kernel.name = "serving_gemm";
    kernel.kind = compute::KernelKind::kGemm;
    kernel.flops = 2.0 * m * n * k;
    kernel.bytes = static_cast<double>(k) * n * wbytes + static_cast<double>(m) * (k + n) * 2.0;
    kernel.shape = {m, n, k, 1};
    return compute::kernel_seconds(accelerator_, spec_.weights, kernel);
  };
  // An MLP of `width` (its shard) over `rows` tokens: up (gate and up when gated), then down.
  const auto mlp = [&](std::int64_t rows, std::int64_t width) {
    return gemm(rows, gated ? 2 * width : width, h) + gemm(rows, h, width);
  };
  double t = gemm(tokens, qkv_cols, h) + gemm(tokens, h, h / tp);
  // Mixture of experts: each token goes to top_k experts; an expert's GEMMs see its share of the
  // tokens, and only experts some token reaches are read.
  const std::int64_t routed = tokens * model_.top_k;
  const std::int64_t experts_hit = std::min<std::int64_t>(model_.experts, routed);
  const std::int64_t per_expert = (routed + experts_hit - 1) / experts_hit;
  if (!train::has_mixed_layers(model_)) {
    t += static_cast<double>(experts_hit) * mlp(per_expert, ffn);
  } else {
    // Layers of two kinds: a MoE layer's routed experts and shared ones (which see every token),
    // a dense layer's one wider MLP; the mean layer, so that layers x it is every layer.
    const double moe =
        t + static_cast<double>(experts_hit) * mlp(per_expert, ffn) + model_.shared_experts * mlp(tokens, ffn);
    const double dense = t + mlp(tokens, train::dense_ffn(model_) / tp);
    t = (train::moe_layer_count(model_) * moe + train::dense_layer_count(model_) * dense) / model_.layers;
  }
  if (memo) gemm_memo_[static_cast<std::size_t>(tokens)] = t;
  return t;
}

double IterationModel::output_layer(std::int64_t rows) const {
  if (rows <= 0) return 0;
  const bool memo = rows < static_cast<std::int64_t>(output_memo_.size());
  if (memo && output_memo_[static_cast<std::size_t>(rows)] >= 0) return output_memo_[static_cast<std::size_t>(rows)];
  // The output projection is vocabulary-parallel and stays in 16 bits (FP8 checkpoints keep
  // lm_head in BF16), then one sampling kernel over the logits.
  const std::int64_t vocab = (model_.vocab + spec_.tp - 1) / spec_.tp;
  compute::Kernel head;
  head.name = "lm_head";
  head.kind = compute::KernelKind::kGemm;
  head.keeps_bf16 = true;
  head.flops = 2.0 * rows * vocab * model_.hidden;
  head.bytes = (static_cast<double>(vocab) * model_.hidden + static_cast<double>(rows) * (model_.hidden + vocab)) * 2.0;
  head.shape = {rows, vocab, model_.hidden, 1};
  compute::Kernel sample;
  sample.name = "sampling";
  sample.kind = compute::KernelKind::kMemory;
  sample.bytes = static_cast<double>(rows) * vocab * 4.0;
  const double t = compute::kernel_seconds(accelerator_, spec_.weights, head) +
                   compute::kernel_seconds(accelerator_, spec_.weights, sample);
  if (memo) output_memo_[static_cast<std::size_t>(rows)] = t;
  return t;
}

IterationTime IterationModel::time(const IterationWork& w) const {
  IterationTime t;
  t.overhead = spec_.iteration_overhead_s + spec_.sequence_overhead_s * static_cast<double>(w.sequences);
  if (w.tokens <= 0) return t;
  const double layers = model_.layers;
  t.gemm = layers * layer_gemms(w.tokens);

  compute::Kernel attention;
  attention.name = "attention";
  attention.kind = compute::KernelKind::kAttention;
  // QK^T and PV: 2 x 2 x head_dim FLOPs per query-key pair and head.
  attention.flops = 4.0 * heads_per_gpu_ * head_dim_ * w.attention_pairs;
  attention.bytes = w.kv_read_tokens * kv_bytes_per_token_layer_ +
                    2.0 * static_cast<double>(w.tokens) * heads_per_gpu_ * head_dim_ * 2.0;  // Q in, O out
  t.attention = layers * compute::kernel_seconds(accelerator_, hw::Precision::kBf16, attention);

  const double T = static_cast<double>(w.tokens);
  const double h = model_.hidden;
  // The MLP width a token's activation runs over, per layer (the mean layer when they differ).
  const double ffn = !train::has_mixed_layers(model_)
                         ? static_cast<double>(model_.ffn_hidden) / spec_.tp * model_.top_k
                         : (train::moe_layer_count(model_) * static_cast<double>(model_.ffn_hidden) *
                                (model_.top_k + model_.shared_experts) +
                            train::dense_layer_count(model_) * static_cast<double>(train::dense_ffn(model_))) /
                               model_.layers / spec_.tp;
  const double qk = (static_cast<double>(model_.hidden) + train::kv_dim(model_)) / spec_.tp;
  // The element-wise kernels of one layer (vLLM's LlamaDecoderLayer): two residual-add norms
  // (fused_add_rms_norm: read x and the residual, write both), the rotary embedding (Q and K
  // read and written), the gated activation (silu_and_mul: read gate and up, write one). Each is
  // timed by its class's measured cost where the accelerator has one, else streams at the
  // generic rate after kernel_overhead.
  const auto streaming = [&](std::string_view name, double bytes, hw::MemoryKernel measured_as) {
    compute::Kernel k;
    k.name = name;
    k.kind = compute::KernelKind::kMemory;
    k.bytes = bytes;
    k.memory_kernel = measured_as;
    return compute::kernel_seconds(accelerator_, hw::Precision::kBf16, k);
  };
  const double per_norm = 4.0 * T * h * 2.0;
  const double rotary = 2.0 * T * qk * 2.0;
  const double activation = (model_.mlp == train::MlpKind::kSwiGlu ? 3.0 : 2.0) * T * ffn * 2.0;
  t.elementwise = layers * (2 * streaming("fused_add_rms_norm", per_norm, hw::MemoryKernel::kNorm) +
                            streaming("rotary_embedding", rotary, hw::MemoryKernel::kRotary) +
                            streaming("activation", activation, hw::MemoryKernel::kActivation));

  if (spec_.tp > 1) t.communication = layers * 2.0 * all_reduce_(activation_bytes(model_, w.tokens));
  if (spec_.pp > 1) t.pipeline = stage_sends_(activation_bytes(model_, w.tokens));
  t.output = output_layer(w.logits);
  t.latency = layers * accelerator_.layer_latency_s;
  t.straggler = (straggler_factor_ - 1) * (t.gemm + t.attention + t.elementwise + t.output);
  return t;
}

}  // namespace fathom::infer
