// Closed-form checks of the training model's counts: FLOPs per step against Megatron's
// formulas and against 6 N tokens plus the attention term; activation memory against
// Korthikanti et al.'s formulas; weights, gradients and optimizer state against 18 bytes per
// parameter and their ZeRO shards.
#include <doctest/doctest.h>

#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/memory.hpp"
#include "models/workloads/training/pipeline_schedule.hpp"
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
  const auto schedule = one_f_one_b(1, s.micro_batches());
  for (int zero : {0, 1, 2, 3}) {
    s.parallel.zero_stage = zero;
    const MemoryReport r = memory_per_rank(s, gpu, schedule);
    const StageMemory& m = r.stages[0];
    const double n = m.parameters;
    CHECK(m.weights == doctest::Approx(2 * n / (zero >= 3 ? 8 : 1)));
    CHECK(m.gradients == doctest::Approx(4 * n / (zero >= 2 ? 8 : 1)));
    CHECK(m.optimizer == doctest::Approx(12 * n / (zero >= 1 ? 8 : 1)));
  }
  // One rank of an un-split model holds every parameter once (tied embeddings, one stage).
  CHECK(memory_per_rank(s, gpu, schedule).stages[0].parameters ==
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

TEST_CASE("context parallelism shards the optimizer over DP x CP, as Megatron-LM does") {
  fathom::hw::AcceleratorSpec gpu;
  gpu.hbm_bytes = 80.0 * (1ULL << 30);
  TrainingSpec s = run(llama3_70b(), 8, 4, 256, 64);
  s.parallel.cp = 2;
  s.parallel.dp = 4;  // 256 / (8 * 4 * 2)
  s.parallel.zero_stage = 1;
  s.sequence = 8192;
  REQUIRE_NOTHROW(check(s));
  const StageMemory m = memory_per_rank(s, gpu, one_f_one_b(4, s.micro_batches())).stages[1];
  CHECK(m.optimizer == doctest::Approx(12 * m.parameters / (4 * 2)));
  CHECK(m.gradients == doctest::Approx(4 * m.parameters));
}

TEST_CASE("the runtime reserve and FP8's weight copies count against HBM") {
  fathom::hw::AcceleratorSpec gpu;
  gpu.hbm_bytes = 80.0 * (1ULL << 30);
  gpu.runtime_reserve_bytes = 3.0 * (1ULL << 30);
  TrainingSpec s = run(llama3_70b(), 8, 4, 64, 64);
  const auto schedule = one_f_one_b(4, s.micro_batches());
  const StageMemory bf16 = memory_per_rank(s, gpu, schedule).stages[1];
  CHECK(bf16.runtime == gpu.runtime_reserve_bytes);
  CHECK(bf16.total() == doctest::Approx(bf16.weights + bf16.gradients + bf16.optimizer + bf16.activations +
                                        bf16.communication + gpu.runtime_reserve_bytes));
  // FP8: 2 more bytes per linear-layer parameter (Transformer Engine's FP8 weight and its
  // transpose); a middle stage holds 20 layers, and only the two norms are not linear.
  s.precision = fathom::hw::Precision::kFp8;
  const StageMemory fp8 = memory_per_rank(s, gpu, schedule).stages[1];
  const double linear = layer_parameters_per_rank(s) - 2.0 * s.model.hidden;
  CHECK(fp8.weights - bf16.weights == doctest::Approx(2 * linear * 20));
  CHECK(fp8.activations == bf16.activations);
}

TEST_CASE("fp8_params keeps the linear weights in FP8 alone; grad_reduce sets the main gradients' bytes") {
  fathom::hw::AcceleratorSpec gpu;
  gpu.hbm_bytes = 80.0 * (1ULL << 30);
  TrainingSpec s = run(llama3_70b(), 8, 4, 64, 64);
  s.precision = fathom::hw::Precision::kFp8;
  const auto schedule = one_f_one_b(4, s.micro_batches());
  const StageMemory copies = memory_per_rank(s, gpu, schedule).stages[1];
  s.fp8_params = true;
  const StageMemory fp8_only = memory_per_rank(s, gpu, schedule).stages[1];
  // Hand count, a middle stage of 20 layers: each linear parameter drops its BF16 copy (2 bytes)
  // and keeps its FP8 weight and transpose (1 + 1); the norms stay BF16. So the weights are 2
  // bytes a parameter, as BF16 alone, and 2 bytes a linear parameter fewer than with copies.
  const double params = fp8_only.parameters;
  const double linear = layer_linear_parameters_per_rank(s) * 20;
  CHECK(fp8_only.weights == doctest::Approx(2 * params));
  CHECK(copies.weights - fp8_only.weights == doctest::Approx(2 * linear));
  CHECK(fp8_only.optimizer == copies.optimizer);  // the FP32 master weights and moments stay
  // The distributed optimizer's gather: a linear parameter in 1 byte, the rest in 2.
  CHECK(gathered_weight_bytes(s, params, linear) == doctest::Approx(2 * params - linear));
  s.fp8_params = false;
  CHECK(gathered_weight_bytes(s, params, linear) == doctest::Approx(2 * params));

  // Main gradients: FP32 (Megatron's grad_reduce_in_fp32) 4 bytes a parameter; BF16 2.
  CHECK(copies.gradients == doctest::Approx(4 * params));
  s.parallel.grad_reduce_bytes = 2;
  CHECK(memory_per_rank(s, gpu, schedule).stages[1].gradients == doctest::Approx(2 * params));
  // ZeRO-2 shards them either way.
  s.parallel.zero_stage = 2;
  CHECK(memory_per_rank(s, gpu, schedule).stages[1].gradients == doctest::Approx(2 * params / s.parallel.dp));

  // fp8_params without FP8 GEMMs is refused at its key.
  s.precision = fathom::hw::Precision::kBf16;
  s.fp8_params = true;
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("fp8_params"), std::invalid_argument);
}

TEST_CASE("interleaved activations: each chunk counted at its own layers, per Megatron's warm-up") {
  fathom::hw::AcceleratorSpec gpu;
  gpu.hbm_bytes = 80.0 * (1ULL << 30);
  // 4 stages x 2 chunks with uneven chunks: chunk layers listed per virtual stage.
  TrainingSpec s = run(llama3_70b(), 8, 4, 32, 16);
  s.parallel.schedule = Schedule::kInterleaved;
  s.parallel.virtual_stages = 2;
  s.parallel.chunk_layers = {12, 10, 10, 10, 8, 10, 10, 10};  // 80 layers
  REQUIRE_NOTHROW(check(s));
  const auto schedule = interleaved_one_f_one_b(4, s.micro_batches(), 2);
  const MemoryReport r = memory_per_rank(s, gpu, schedule);
  const double layer = layer_activation_bytes(s);
  // Stage 0 warms up (p - 1) * 2 + (v - 1) * p = 10 forwards: micro-batches 0-3 of chunk 0,
  // 0-3 of chunk 1, 4-5 of chunk 0. In the steady phase each forward is followed by a
  // backward; the first backwards free chunk 1 (the last virtual stages finish first) while
  // the forwards still feed chunk 0, so the peak is 8 passes of chunk 0 (12 layers) and 3 of
  // chunk 1 (8 layers), 11 in all (warm-up + 1).
  CHECK(r.stages[0].activations == doctest::Approx(layer * (8 * 12 + 3 * 8)));
  // The old bound (every in-flight chunk at the largest chunk) would have said 11 x 12 layers.
  CHECK(r.stages[0].activations < layer * 11 * 12);
  // The last stage: warm-up (v - 1) * p = 4 forwards of chunk 0 (10 layers), then chunk 1
  // passes (10 layers and the logits) alternate with backwards: 4 of chunk 0 and 1 of chunk 1.
  const double logits = 2 * 4 * 2048.0 * s.model.vocab / 8;
  CHECK(r.stages[3].activations == doctest::Approx(layer * (4 * 10 + 10) + logits));
}

TEST_CASE("pipeline layouts: the embedding and the loss counted in the split, as Megatron-LM and Llama 3 do") {
  // Llama 3 405B: 126 layers on 16 stages, one fewer layer on the first and the last.
  TrainingSpec s = run(llama3_70b(), 8, 16, 128, 64);
  s.model.layers = 126;
  s.parallel.embedding_in_split = true;
  s.parallel.loss_in_split = true;
  REQUIRE_NOTHROW(check(s));
  std::vector<int> layout = pipeline_layout(s);
  CHECK(layout.front() == 7);
  CHECK(layout.back() == 7);
  // Interleaved with 4 chunks: 128 places over 64 virtual stages, 2 each; the first virtual
  // stage holds the embedding and one layer, the last one layer and the loss.
  s.parallel.schedule = Schedule::kInterleaved;
  s.parallel.virtual_stages = 4;
  s.global_batch = 128;
  REQUIRE_NOTHROW(check(s));
  layout = pipeline_layout(s);
  REQUIRE(layout.size() == 64);
  CHECK(layout.front() == 1);
  CHECK(layout.back() == 1);
  for (std::size_t vs = 1; vs + 1 < layout.size(); ++vs) CHECK(layout[vs] == 2);
  CHECK(stage_layers(s).front() == 7);  // chunk 0 holds 1 layer, chunks 1-3 two each
  // Two chunks: 64 places over 32 virtual stages.
  s.model.layers = 62;
  s.parallel.virtual_stages = 2;
  s.global_batch = 64;
  REQUIRE_NOTHROW(check(s));
  layout = pipeline_layout(s);
  CHECK(layout.front() == 1);
  // A first virtual stage of the embedding alone (Megatron's embedding-only chunk), listed.
  s.parallel.embedding_in_split = false;
  s.parallel.loss_in_split = false;
  s.parallel.chunk_layers.assign(32, 2);
  s.parallel.chunk_layers.front() = 0;
  REQUIRE_NOTHROW(check(s));
  fathom::hw::AcceleratorSpec gpu;
  gpu.hbm_bytes = 80.0 * (1ULL << 30);
  const auto schedule = interleaved_one_f_one_b(16, s.micro_batches(), 2);
  const MemoryReport r = memory_per_rank(s, gpu, schedule);
  // Stage 0's chunk 0 holds only the embedding: its parameters are the vocabulary's rows.
  CHECK(chunk_parameters(s, pipeline_layout(s), 0, 0) == doctest::Approx(128256.0 * 8192 / 8));
  CHECK(r.stages[0].parameters == doctest::Approx(128256.0 * 8192 / 8 + layer_parameters_per_rank(s) * 2));
  // An empty chunk in the middle is an error naming the key.
  s.parallel.chunk_layers[2] = 0;
  s.parallel.chunk_layers[3] = 4;
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("parallel.chunk_layers"), std::invalid_argument);
}

TEST_CASE("check() names the key of an inconsistent strategy") {
  TrainingSpec s = run(gpt(24, 2304, 24), 5, 1, 10, 64);
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("parallel.tp"), std::invalid_argument);
  s = run(gpt(24, 2304, 24), 8, 1, 64, 500);
  CHECK_THROWS_WITH_AS(check(s), doctest::Contains("global_batch"), std::invalid_argument);
  s = run(gpt(24, 2304, 24), 8, 1, 64, 512);
  CHECK_NOTHROW(check(s));
}
