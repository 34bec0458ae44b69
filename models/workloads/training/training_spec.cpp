#include "models/workloads/training/training_spec.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

namespace fathom::train {

namespace {

[[noreturn]] void fail(const std::string& key, const std::string& message) {
  throw std::invalid_argument(key + ": " + message);
}

std::string str(long long v) { return std::to_string(v); }

}  // namespace

void check(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  if (p.tp < 1 || p.pp < 1 || p.cp < 1 || p.ep < 1) fail("parallel", "tp, pp, cp and ep must be >= 1");
  if (m.heads % p.tp != 0) {
    fail("parallel.tp", "expected a divisor of the model's " + str(m.heads) + " attention heads, found " + str(p.tp));
  }
  if (m.ffn_hidden % p.tp != 0) {
    fail("parallel.tp", "expected a divisor of the model's ffn_hidden " + str(m.ffn_hidden) + ", found " + str(p.tp));
  }
  const long long model_ranks = static_cast<long long>(p.tp) * p.pp * p.cp;
  if (spec.gpus < 1 || spec.gpus % model_ranks != 0) {
    fail("workload.gpus", "expected a multiple of tp * pp * cp = " + str(model_ranks) + ", found " + str(spec.gpus));
  }
  if (p.dp != spec.gpus / model_ranks)
    fail("parallel.dp", "expected gpus / (tp * pp * cp) = " + str(spec.gpus / model_ranks));
  if (p.dp % p.ep != 0)
    fail("parallel.ep", "expected a divisor of the data-parallel size " + str(p.dp) + ", found " + str(p.ep));
  if (p.ep > 1 && (m.experts <= 1 || m.experts % p.ep != 0)) {
    fail("parallel.ep", "expected a divisor of the model's " + str(m.experts) + " experts, found " + str(p.ep));
  }
  if (spec.sequence < 1) fail("workload.sequence", "expected >= 1 token");
  if (m.position == PositionKind::kLearned && m.max_sequence > 0 && spec.sequence > m.max_sequence) {
    fail("workload.sequence", "expected at most the model's learned position table of " + str(m.max_sequence) +
                                  " tokens, found " + str(spec.sequence));
  }
  if (spec.sequence % p.cp != 0) {
    fail("parallel.cp", "expected a divisor of the sequence length " + str(spec.sequence) + ", found " + str(p.cp));
  }
  if (spec.micro_batch < 1) fail("workload.micro_batch", "expected >= 1");
  const long long per_step = static_cast<long long>(spec.micro_batch) * p.dp;
  if (spec.global_batch < 1 || spec.global_batch % per_step != 0) {
    fail("workload.global_batch",
         "expected a multiple of micro_batch * dp = " + str(per_step) + ", found " + str(spec.global_batch));
  }
  if (p.virtual_stages < 1) fail("parallel.virtual_stages", "expected >= 1");
  if (p.schedule == Schedule::kInterleaved) {
    if (p.pp < 2) fail("parallel.schedule", "interleaved needs pp >= 2");
    if (spec.micro_batches() % p.pp != 0) {
      fail("parallel.schedule", "interleaved needs the micro-batches per step (" + str(spec.micro_batches()) +
                                    ") to be a multiple of pp (" + str(p.pp) + ")");
    }
  }
  if (p.zero_stage < 0 || p.zero_stage > 3) fail("parallel.zero", "expected 0, 1, 2 or 3, found " + str(p.zero_stage));
  if (!(p.bucket_bytes > 0)) fail("parallel.bucket", "expected a positive size");
  if (!p.stage_layers.empty()) {
    if (static_cast<int>(p.stage_layers.size()) != p.pp) {
      fail("parallel.stage_layers", "expected " + str(p.pp) + " entries (one per stage), found " +
                                        str(static_cast<long long>(p.stage_layers.size())));
    }
    const long long sum = std::accumulate(p.stage_layers.begin(), p.stage_layers.end(), 0LL);
    if (sum != m.layers)
      fail("parallel.stage_layers",
           "expected entries summing to the model's " + str(m.layers) + " layers, found " + str(sum));
    for (int n : p.stage_layers) {
      if (n < 1) fail("parallel.stage_layers", "expected at least one layer per stage, found " + str(n));
    }
  } else if (m.layers < p.pp) {
    fail("parallel.pp", "expected at most the model's " + str(m.layers) + " layers, found " + str(p.pp));
  }
  for (int layers : stage_layers(spec)) {
    if (layers < p.virtual_stages) {
      fail("parallel.virtual_stages", "expected at most every stage's layer count (a stage holds " + str(layers) +
                                          "), so that each model chunk has a layer");
    }
  }
  if (!(spec.max_memory_fraction > 0 && spec.max_memory_fraction <= 1))
    fail("workload.memory_fraction", "expected (0, 1]");
}

int chunk_layers(int layers, int chunks, int chunk) { return layers / chunks + (chunk < layers % chunks ? 1 : 0); }

std::vector<int> stage_layers(const TrainingSpec& spec) {
  const ParallelSpec& p = spec.parallel;
  if (!p.stage_layers.empty()) return p.stage_layers;
  const int layers = spec.model.layers;
  std::vector<int> out(static_cast<std::size_t>(p.pp), layers / p.pp);
  // The remainder goes to the middle stages, away from the embedding and the output layer.
  int extra = layers % p.pp;
  for (int s = 1; s < p.pp - 1 && extra > 0; ++s, --extra) ++out[static_cast<std::size_t>(s)];
  for (int s = 0; extra > 0; ++s, --extra) ++out[static_cast<std::size_t>(s)];
  return out;
}

}  // namespace fathom::train
