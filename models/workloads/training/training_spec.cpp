#include "models/workloads/training/training_spec.hpp"

#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/errors.hpp"

namespace fathom::train {

namespace {

// A rule the spec breaks, typed (sim::SpecViolation); `field` is the spec's path ("parallel.tp",
// "sequence"), which the loader finds under `workload`.
[[noreturn]] void fail(std::string field, std::string expected, std::string found = {}, std::string hint = {}) {
  throw sim::SpecError({std::move(field), std::move(expected), std::move(found), std::move(hint)});
}

std::string str(long long v) { return std::to_string(v); }

}  // namespace

void check(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  if (has_mixed_layers(m)) {
    fail("model", "a model whose layers are all alike (the step models one kind of layer)",
         "\"" + m.name + "\" with a MoE layer every " + str(m.moe_every) + " and " + str(m.shared_experts) +
             " shared expert(s)",
         "fathom serves such a model (workload kind: inference) but does not train it (docs/models.md)");
  }
  if (spec.fp8_params && spec.precision != hw::Precision::kFp8) {
    fail("fp8_params", "`precision: fp8` (the weights can be kept in FP8 only when the GEMMs run in FP8)",
         "precision " + std::string(hw::to_string(spec.precision)));
  }
  if (p.tp < 1 || p.pp < 1 || p.cp < 1 || p.ep < 1) {
    fail("parallel", "tp, pp, cp and ep of 1 or more",
         "tp " + str(p.tp) + ", pp " + str(p.pp) + ", cp " + str(p.cp) + ", ep " + str(p.ep));
  }
  if (m.heads % p.tp != 0) {
    fail("parallel.tp", "a divisor of the model's " + str(m.heads) + " attention heads", str(p.tp));
  }
  if (m.ffn_hidden % p.tp != 0) {
    fail("parallel.tp", "a divisor of the model's ffn_hidden " + str(m.ffn_hidden), str(p.tp));
  }
  const long long model_ranks = static_cast<long long>(p.tp) * p.pp * p.cp;
  if (spec.gpus < 1 || spec.gpus % model_ranks != 0) {
    fail("gpus", "a multiple of tp * pp * cp = " + str(model_ranks), str(spec.gpus));
  }
  if (p.dp != spec.gpus / model_ranks)
    fail("parallel.dp", "gpus / (tp * pp * cp) = " + str(spec.gpus / model_ranks), str(p.dp));
  if (p.dp % p.ep != 0) fail("parallel.ep", "a divisor of the data-parallel size " + str(p.dp), str(p.ep));
  if (p.ep > 1 && (m.experts <= 1 || m.experts % p.ep != 0)) {
    fail("parallel.ep", "a divisor of the model's " + str(m.experts) + " experts", str(p.ep));
  }
  if (spec.sequence < 1) fail("sequence", "at least 1 token", str(spec.sequence));
  if (m.position == PositionKind::kLearned && m.max_sequence > 0 && spec.sequence > m.max_sequence) {
    fail("sequence", "at most the model's learned position table of " + str(m.max_sequence) + " tokens",
         str(spec.sequence));
  }
  if (spec.sequence % p.cp != 0) {
    fail("parallel.cp", "a divisor of the sequence length " + str(spec.sequence), str(p.cp));
  }
  if (spec.micro_batch < 1) fail("micro_batch", "at least 1", str(spec.micro_batch));
  const long long per_step = static_cast<long long>(spec.micro_batch) * p.dp;
  if (spec.global_batch < 1 || spec.global_batch % per_step != 0) {
    fail("global_batch", "a multiple of micro_batch * dp = " + str(per_step), str(spec.global_batch));
  }
  if (p.virtual_stages < 1) fail("parallel.virtual_stages", "at least 1", str(p.virtual_stages));
  if (p.schedule == Schedule::kInterleaved) {
    if (p.pp < 2) fail("parallel.schedule", "1f1b with pp 1 (interleaved needs pp >= 2)", "interleaved");
    if (spec.micro_batches() % p.pp != 0) {
      fail("parallel.schedule",
           "1f1b, unless the micro-batches per step (" + str(spec.micro_batches()) + ") are a multiple of pp (" +
               str(p.pp) + ")",
           "interleaved", "change global_batch, micro_batch or pp");
    }
  }
  if (p.zero_stage < 0 || p.zero_stage > 3) fail("parallel.zero", "0, 1, 2 or 3", str(p.zero_stage));
  if (p.zero_prefetch < 0) fail("parallel.zero_prefetch", "0 or more", str(p.zero_prefetch));
  if (p.tp_overlap && (p.tp < 2 || !p.sequence_parallel)) {
    fail("parallel.tp_overlap",
         "false unless tp > 1 with sequence_parallel (it pipelines sequence parallelism's all-gathers and "
         "reduce-scatters with their GEMMs)",
         "true");
  }
  if (!(p.bucket_bytes > 0)) fail("parallel.bucket", "a positive size");
  if (!p.stage_layers.empty() && !p.chunk_layers.empty()) {
    fail("parallel.chunk_layers", "either stage_layers or chunk_layers", "both");
  }
  const bool in_split = p.embedding_in_split || p.loss_in_split;
  if (in_split && (!p.stage_layers.empty() || !p.chunk_layers.empty())) {
    fail(p.embedding_in_split ? "parallel.embedding_in_split" : "parallel.loss_in_split",
         "false when the layers per stage or chunk are listed (the list already places the embedding and the loss)",
         "true");
  }
  const auto check_list = [&](const std::vector<int>& list, const std::string& key, long long entries,
                              const std::string& what) {
    if (list.empty()) return;
    if (static_cast<long long>(list.size()) != entries) {
      fail(key, str(entries) + " entries (" + what + ")", str(static_cast<long long>(list.size())));
    }
    const long long sum = std::accumulate(list.begin(), list.end(), 0LL);
    if (sum != m.layers) fail(key, "entries summing to the model's " + str(m.layers) + " layers", str(sum));
  };
  const long long virtual_stages = static_cast<long long>(p.pp) * p.virtual_stages;
  check_list(p.stage_layers, "parallel.stage_layers", p.pp, "one per stage");
  check_list(p.chunk_layers, "parallel.chunk_layers", virtual_stages, "one per virtual stage: pp * virtual_stages");
  const long long units = m.layers + (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
  if (p.stage_layers.empty() && p.chunk_layers.empty() && units < virtual_stages) {
    fail(p.virtual_stages > 1 ? "parallel.virtual_stages" : "parallel.pp",
         "at most one virtual stage per layer (" + str(units) + " to split)", str(virtual_stages) + " virtual stages");
  }
  const std::vector<int> layout = pipeline_layout(spec);
  for (std::size_t vs = 0; vs < layout.size(); ++vs) {
    const bool holds_end = (vs == 0) || (vs + 1 == layout.size());
    if (layout[vs] < 0 || (layout[vs] == 0 && !holds_end)) {
      const std::string key = !p.chunk_layers.empty()   ? "parallel.chunk_layers"
                              : !p.stage_layers.empty() ? "parallel.stage_layers"
                              : p.virtual_stages > 1    ? "parallel.virtual_stages"
                                                        : "parallel.pp";
      fail(key,
           "at least one layer in every virtual stage but the first and the last (which hold the embedding "
           "and the output layer)",
           str(layout[vs]) + " in virtual stage " + str(static_cast<long long>(vs)));
    }
  }
  if (!(spec.max_memory_fraction > 0 && spec.max_memory_fraction <= 1)) fail("memory_fraction", "a fraction in (0, 1]");
}

namespace {

// `total` spread over `parts` as evenly as possible, the remainder going to the middle parts
// first (away from the ends, which hold the embedding and the output layer).
std::vector<int> even_split(long long total, int parts) {
  std::vector<int> out(static_cast<std::size_t>(parts), static_cast<int>(total / parts));
  auto extra = static_cast<int>(total % parts);
  for (int i = 1; i < parts - 1 && extra > 0; ++i, --extra) ++out[static_cast<std::size_t>(i)];
  for (int i = 0; extra > 0; ++i, --extra) ++out[static_cast<std::size_t>(i)];
  return out;
}

}  // namespace

std::vector<int> pipeline_layout(const TrainingSpec& spec) {
  const ParallelSpec& p = spec.parallel;
  const int v = p.virtual_stages;
  if (!p.chunk_layers.empty()) return p.chunk_layers;
  std::vector<int> layout(static_cast<std::size_t>(p.pp) * v, 0);
  if (!p.embedding_in_split && !p.loss_in_split) {
    // Stages first (as listed, or even), then each stage's layers over its chunks, the first
    // chunks taking one more.
    const std::vector<int> stages = p.stage_layers.empty() ? even_split(spec.model.layers, p.pp) : p.stage_layers;
    for (int s = 0; s < p.pp; ++s) {
      const int n = stages[static_cast<std::size_t>(s)];
      for (int c = 0; c < v; ++c) layout[static_cast<std::size_t>(c) * p.pp + s] = n / v + (c < n % v ? 1 : 0);
    }
    return layout;
  }
  // Megatron's accounting: the embedding and the loss count as layers of the even split over
  // the virtual stages, and the first and last virtual stages give those places up.
  const long long units = spec.model.layers + (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
  layout = even_split(units, p.pp * v);
  if (p.embedding_in_split) --layout.front();
  if (p.loss_in_split) --layout.back();
  return layout;
}

std::vector<int> stage_layers(const TrainingSpec& spec) {
  const ParallelSpec& p = spec.parallel;
  const std::vector<int> layout = pipeline_layout(spec);
  std::vector<int> out(static_cast<std::size_t>(p.pp), 0);
  for (std::size_t vs = 0; vs < layout.size(); ++vs) out[vs % static_cast<std::size_t>(p.pp)] += layout[vs];
  return out;
}

}  // namespace fathom::train
