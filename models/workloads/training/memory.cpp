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

MemoryReport memory_per_rank(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                             const std::vector<int>& in_flight) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  const std::vector<int> layers = stage_layers(spec);
  const double dp = p.dp;
  const double per_layer = layer_parameters_per_rank(spec);
  const double embedding = static_cast<double>(m.vocab) * m.hidden / p.tp +
                           (m.position == PositionKind::kLearned ? static_cast<double>(m.max_sequence) * m.hidden : 0);
  const double output = static_cast<double>(m.vocab) * m.hidden / p.tp;
  const double tokens = static_cast<double>(spec.micro_batch) * spec.sequence / p.cp;

  MemoryReport report;
  report.capacity_bytes = accelerator.hbm_bytes * spec.max_memory_fraction;
  for (int s = 0; s < p.pp; ++s) {
    const auto su = static_cast<std::size_t>(s);
    StageMemory mem;
    mem.parameters = per_layer * layers[su];
    if (s == 0) mem.parameters += embedding;
    // The output layer: its own matrix, or with tied embeddings a copy on the last stage when
    // it is not also the first.
    if (s == p.pp - 1 && (!m.tied_embeddings || p.pp > 1)) mem.parameters += output;
    mem.weights = 2 * mem.parameters / (p.zero_stage >= 3 ? dp : 1);
    mem.gradients = 4 * mem.parameters / (p.zero_stage >= 2 ? dp : 1);
    mem.optimizer = 12 * mem.parameters / (p.zero_stage >= 1 ? dp : 1);
    // In-flight chunks counted at the largest chunk's layers (an upper bound when uneven).
    const int chunk = chunk_layers(layers[su], p.virtual_stages, 0);
    mem.activations = layer_activation_bytes(spec) * chunk * in_flight[su];
    if (s == p.pp - 1) {
      // FP32 logits and their gradient for the micro-batch at the output layer.
      mem.activations += 2 * 4 * tokens * static_cast<double>(m.vocab) / p.tp;
    }
    mem.communication = 2 * std::min(p.bucket_bytes, mem.gradients) + kRuntimeReserveBytes;
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
