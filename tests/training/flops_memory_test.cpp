// Closed-form checks of the training model's counts: FLOPs per step against Megatron's
// formulas and against 6 N tokens plus the attention term; activation memory against
// Korthikanti et al.'s formulas; weights, gradients and optimizer state against 18 bytes per
// parameter and their ZeRO shards.
#include <doctest/doctest.h>

#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/memory.hpp"
#include "models/workloads/training/training_spec.hpp"
#include "models/workloads/training/transformer.hpp"

using namespace fathom::train;

namespace {

TransformerSpec gpt(int layers, int hidden, int heads) {
  TransformerSpec m;
  m.name = "gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.vocab = 51200;
  m.max_sequence = 2048;
  m.mlp = MlpKind::kGelu;
  m.position = PositionKind::kLearned;
  m.tied_embeddings = true;
  return m;
}

TransformerSpec llama3_70b() {
  TransformerSpec m;
  m.name = "llama3-70b";
  m.layers = 80;
  m.hidden = 8192;
  m.ffn_hidden = 28672;
  m.heads = 64;
  m.kv_heads = 8;
  m.vocab = 128256;
  m.max_sequence = 8192;
  m.mlp = MlpKind::kSwiGlu;
  m.position = PositionKind::kRotary;
  return m;
}

TrainingSpec run(const TransformerSpec& m, int tp, int pp, int gpus, int batch) {
  TrainingSpec s;
  s.model = m;
  s.parallel.tp = tp;
  s.parallel.pp = pp;
  s.parallel.dp = gpus / (tp * pp);
  s.gpus = gpus;
  s.sequence = 2048;
  s.global_batch = batch;
  s.micro_batch = 1;
  return s;
}

}  // namespace

TEST_CASE("GPT FLOPs per step are Megatron's 72 and 96 B s l h^2 (1 + s/6h + V/16lh)") {
  for (auto [l, h, a] : {std::tuple{24, 2304, 24}, {96, 16384, 128}, {128, 25600, 160}}) {
    TrainingSpec s = run(gpt(l, h, a), 8, 1, 64, 512);
    const double B = s.global_batch, S = s.sequence, V = s.model.vocab, L = l, H = h;
    const double bracket = 1 + S / (6 * H) + V / (16 * L * H);
    s.recompute = Recompute::kFull;
    const StepFlops full = step_flops(s);
    CHECK(full.model == doctest::Approx(72 * B * S * L * H * H * bracket).epsilon(1e-12));
    CHECK(full.hardware == doctest::Approx(96 * B * S * L * H * H * bracket).epsilon(1e-12));
  }
}

TEST_CASE("FLOPs without recomputation are 6 N tokens plus the attention term (GQA, SwiGLU)") {
  TrainingSpec s = run(llama3_70b(), 8, 4, 128, 64);
  s.sequence = 8192;
  s.recompute = Recompute::kNone;
  const TransformerSpec& m = s.model;
  const double tokens = static_cast<double>(s.global_batch) * s.sequence;
  // N: every weight a token multiplies (all linear layers and the output layer; not the
  // embedding lookup, norms or router), 2 FLOPs per weight forward, 6 with backward.
  const double h = m.hidden, kv = m.kv_heads * h / m.heads;
  const double per_layer = h * (h + 2 * kv) + h * h + 3 * h * m.ffn_hidden;
  const double n = m.layers * per_layer + h * m.vocab;
  const double attention = 3 * 4.0 * s.sequence * h * m.layers;  // scores and values, forward + backward
  CHECK(step_flops(s).hardware == doctest::Approx(tokens * (6 * n + attention)).epsilon(1e-12));
  // Selective recomputation with FlashAttention recomputes nothing outside the kernel.
  s.recompute = Recompute::kSelective;
  CHECK(step_flops(s).hardware == doctest::Approx(tokens * (6 * n + attention)).epsilon(1e-12));
}

TEST_CASE("activation memory per layer is Korthikanti et al.'s s b h (34 + 5 a s / h)") {
  TrainingSpec s = run(gpt(24, 2304, 24), 1, 1, 8, 64);
  s.micro_batch = 2;
  s.flash_attention = false;
  s.recompute = Recompute::kNone;
  s.parallel.sequence_parallel = false;
  const double S = s.sequence, B = s.micro_batch, H = 2304, A = 24;
  CHECK(layer_activation_bytes(s) == doctest::Approx(S * B * H * (34 + 5 * A * S / H)));
  // Tensor parallelism without sequence parallelism: s b h (10 + 24/t + 5 a s/(h t)).
  s = run(gpt(24, 2304, 24), 8, 1, 8, 64);
  s.flash_attention = false;
  s.recompute = Recompute::kNone;
  s.parallel.sequence_parallel = false;
  const double t = 8;
  CHECK(layer_activation_bytes(s) == doctest::Approx(S * 1 * H * (10 + 24 / t + 5 * A * S / (H * t))));
  // With sequence parallelism everything divides by t; selective recomputation drops the scores.
  s.parallel.sequence_parallel = true;
  CHECK(layer_activation_bytes(s) == doctest::Approx(S * H * (34 / t + 5 * A * S / (H * t))));
  s.recompute = Recompute::kSelective;
  CHECK(layer_activation_bytes(s) == doctest::Approx(S * H * 34 / t));
  // Full recomputation keeps each layer's input: 2 s b h / t.
  s.recompute = Recompute::kFull;
  CHECK(layer_activation_bytes(s) == doctest::Approx(2 * S * H / t));
}

TEST_CASE("weights, gradients and optimizer state: 18 bytes per parameter, sharded by ZeRO stage") {
  fathom::hw::AcceleratorSpec gpu;
  gpu.name = "test";
  gpu.hbm_bytes = 80e9;
  TrainingSpec s = run(gpt(24, 2304, 24), 1, 1, 8, 64);
  s.recompute = Recompute::kFull;
  const std::vector<int> in_flight{1};
  for (int zero : {0, 1, 2, 3}) {
    s.parallel.zero_stage = zero;
    const MemoryReport r = memory_per_rank(s, gpu, in_flight);
    const StageMemory& m = r.stages[0];
    const double n = m.parameters;
    CHECK(m.weights == doctest::Approx(2 * n / (zero >= 3 ? 8 : 1)));
    CHECK(m.gradients == doctest::Approx(4 * n / (zero >= 2 ? 8 : 1)));
    CHECK(m.optimizer == doctest::Approx(12 * n / (zero >= 1 ? 8 : 1)));
  }
  // One rank of an un-split model holds every parameter once (tied embeddings, one stage).
  CHECK(memory_per_rank(s, gpu, in_flight).stages[0].parameters ==
        doctest::Approx(parameter_count(s.model)).epsilon(0.002));
}

TEST_CASE("stage layers: 126 layers on 16 stages put one fewer on the first and the last") {
  TrainingSpec s = run(llama3_70b(), 8, 16, 128, 64);
  s.model.layers = 126;
  const auto layers = stage_layers(s);
  CHECK(layers.front() == 7);
  CHECK(layers.back() == 7);
  for (std::size_t i = 1; i + 1 < layers.size(); ++i) CHECK(layers[i] == 8);
}

TEST_CASE("check() names the key of an inconsistent strategy") {
  TrainingSpec s = run(gpt(24, 2304, 24), 5, 1, 10, 64);
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("parallel.tp"), std::invalid_argument);
  s = run(gpt(24, 2304, 24), 8, 1, 64, 500);
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("global_batch"), std::invalid_argument);
  s = run(gpt(24, 2304, 24), 8, 1, 64, 512);
  CHECK_NOTHROW(check(s));
}
