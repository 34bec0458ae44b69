#include "models/workloads/training/memory.hpp"

#include <algorithm>

namespace fathom::train {

namespace {

constexpr double kAct = 2;  // BF16 activation bytes

double kv_width(const TransformerSpec& m) { return static_cast<double>(m.kv_heads) * m.hidden / m.heads; }

}  // namespace

double layer_parameters_per_rank(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  const double h = m.hidden;
  const double attention = (h * (h + 2 * kv_width(m)) + h * h) / p.tp;
  const double mlp_one = (m.mlp == MlpKind::kSwiGlu ? 3.0 : 2.0) * h * m.ffn_hidden / p.tp;
  const double mlp = m.experts > 1 ? mlp_one * m.experts / p.ep + h * m.experts : mlp_one;
  return attention + mlp + 2 * h;  // two norms' weights, replicated
}

double layer_linear_parameters_per_rank(const TrainingSpec& spec) {
  return layer_parameters_per_rank(spec) - 2.0 * spec.model.hidden;
}

double gathered_weight_bytes(const TrainingSpec& spec, double params, double linear) {
  const bool fp8_weights = spec.precision == hw::Precision::kFp8 && spec.fp8_params;
  return 2 * params - (fp8_weights ? linear : 0.0);
}

double layer_activation_bytes(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  const double t = p.tp;
  const double tokens = static_cast<double>(spec.micro_batch) * spec.sequence / p.cp;
  const double h = m.hidden;
  const double ew = p.sequence_parallel ? t : 1.0;  // element-wise tensors split by sequence parallelism
  if (spec.recompute == Recompute::kFull) return kAct * tokens * h / ew;

  const double kv = std::max(1.0, static_cast<double>(m.kv_heads) / t) * h / m.heads;
  const double q = h / t;
  // Attention block: norm input, QKV input, Q and K, V, projection input, dropout mask.
  double bytes = tokens * (kAct * h / ew + kAct * h / ew + kAct * (q + kv) + kAct * kv + kAct * q + h / ew);
  const bool scores_kept = !spec.flash_attention && spec.recompute == Recompute::kNone;
  if (scores_kept) {
    // Softmax output, dropout mask and dropout output of the s x s scores, per local head.
    bytes += 5.0 * spec.micro_batch * (static_cast<double>(m.heads) / t) * (spec.sequence / p.cp) * spec.sequence;
  }
  // MLP block: norm input, up-projection input, its output(s), activation output, dropout mask.
  const double f = static_cast<double>(m.ffn_hidden) / t;
  const double routed = m.experts > 1 ? m.top_k : 1;
  const bool gated = m.mlp == MlpKind::kSwiGlu;
  bytes += tokens * (kAct * h / ew + h / ew);
  bytes += tokens * routed * (kAct * h / ew + kAct * (gated ? 2 : 1) * f + kAct * f);
  return bytes;
}

double chunk_parameters(const TrainingSpec& spec, const std::vector<int>& layout, int stage, int chunk) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  const auto vs = static_cast<std::size_t>(chunk) * static_cast<std::size_t>(p.pp) + static_cast<std::size_t>(stage);
  double n = layer_parameters_per_rank(spec) * layout.at(vs);
  const double vocab_rows = static_cast<double>(m.vocab) * m.hidden / p.tp;
  if (vs == 0) {
    n += vocab_rows;
    // A learned position table is replicated on every TP rank.
    if (m.position == PositionKind::kLearned) n += static_cast<double>(m.max_sequence) * m.hidden;
  }
  // The output layer: its own matrix, or with tied embeddings a copy on the last stage when it
  // is not also the first.
  if (vs + 1 == layout.size() && (!m.tied_embeddings || p.pp > 1)) n += vocab_rows;
  return n;
}

std::vector<double> peak_activation_bytes(const std::vector<std::vector<PipelinePass>>& schedule,
                                          const std::vector<std::vector<double>>& chunk_bytes) {
  std::vector<double> peak;
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    double live = 0;
    double most = 0;
    for (const PipelinePass& pass : schedule[s]) {
      const double bytes = chunk_bytes.at(s).at(static_cast<std::size_t>(pass.chunk));
      live += pass.forward ? bytes : -bytes;
      most = std::max(most, live);
    }
    peak.push_back(most);
  }
  return peak;
}

MemoryReport memory_per_rank(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                             const std::vector<std::vector<PipelinePass>>& schedule) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  const int v = p.virtual_stages;
  const std::vector<int> layout = pipeline_layout(spec);
  // The ranks that hold the same weights: data-parallel replicas, and with context parallelism
  // the CP ranks of each (they see different tokens of the same samples).
  const double shards = static_cast<double>(p.dp) * p.cp;
  const double tokens = static_cast<double>(spec.micro_batch) * spec.sequence / p.cp;
  // Linear-layer parameters of one layer (all but the two norms), for FP8's weight copies.
  const double linear_per_layer = layer_linear_parameters_per_rank(spec);
  const double per_layer_activations = layer_activation_bytes(spec);
  // FP32 logits and their gradient for one micro-batch at the output layer.
  const double logits = 2 * 4 * tokens * static_cast<double>(m.vocab) / p.tp;

  std::vector<std::vector<double>> chunk_bytes(static_cast<std::size_t>(p.pp), std::vector<double>(v, 0.0));
  for (std::size_t vs = 0; vs < layout.size(); ++vs) {
    double bytes = per_layer_activations * layout[vs];
    if (vs + 1 == layout.size()) bytes += logits;
    chunk_bytes[vs % static_cast<std::size_t>(p.pp)][vs / static_cast<std::size_t>(p.pp)] = bytes;
  }
  const std::vector<double> activations = peak_activation_bytes(schedule, chunk_bytes);

  MemoryReport report;
  report.capacity_bytes = accelerator.hbm_bytes * spec.max_memory_fraction;
  const std::vector<int> layers = stage_layers(spec);
  for (int s = 0; s < p.pp; ++s) {
    const auto su = static_cast<std::size_t>(s);
    StageMemory mem;
    for (int c = 0; c < v; ++c) mem.parameters += chunk_parameters(spec, layout, s, c);
    // FP8's copies beside the BF16 weights; with fp8_params they are the weights (no copies).
    const bool fp8_copies_kept = spec.precision == hw::Precision::kFp8 && !spec.fp8_params;
    const double fp8_copies = fp8_copies_kept ? 2 * linear_per_layer * layers[su] : 0.0;
    mem.weights = (2 * mem.parameters + fp8_copies) / (p.zero_stage >= 3 ? shards : 1);
    mem.gradients = p.grad_reduce_bytes * mem.parameters / (p.zero_stage >= 2 ? shards : 1);
    mem.optimizer = 12 * mem.parameters / (p.zero_stage >= 1 ? shards : 1);
    mem.activations = activations[su];
    mem.communication = 2 * std::min(p.bucket_bytes, mem.gradients);
    if (p.zero_stage >= 3 && shards > 1) {
      // ZeRO-3 gathers each layer's BF16 weights before using them: the layer being computed
      // and the zero_prefetch layers gathered ahead of it are whole at once.
      mem.communication +=
          (1.0 + p.zero_prefetch) * gathered_weight_bytes(spec, layer_parameters_per_rank(spec), linear_per_layer);
    }
    mem.runtime = accelerator.runtime_reserve_bytes;
    if (mem.total() > report.peak_bytes) {
      report.peak_bytes = mem.total();
      report.peak_stage = s;
    }
    report.stages.push_back(mem);
  }
  report.fits = report.peak_bytes <= report.capacity_bytes;
  return report;
}

}  // namespace fathom::train
