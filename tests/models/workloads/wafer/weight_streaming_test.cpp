// Weight-streaming training against its closed forms: a step whose compute hides behind the
// weight stream takes the stream's time; a step whose streams are free takes its compute; the
// balance point; memory limits as located violations.
#include "models/workloads/wafer/weight_streaming.hpp"

#include <doctest/doctest.h>

#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/wafer/swarmx_streams.hpp"
#include "tests/models/workloads/wafer/wafer_fixtures.hpp"

namespace fathom::wafer {

namespace {

// A Llama-style model small enough to reason about: 8 layers of width 2048.
train::TransformerSpec small_model() {
  train::TransformerSpec m;
  m.name = "small";
  m.layers = 8;
  m.hidden = 2048;
  m.ffn_hidden = 5632;
  m.heads = 16;
  m.kv_heads = 16;
  m.vocab = 32000;
  m.max_sequence = 2048;
  m.mlp = train::MlpKind::kSwiGlu;
  m.position = train::PositionKind::kRotary;
  return m;
}

WaferCluster cluster(int systems) { return test::test_cluster(systems); }

WaferTrainingSpec spec(int global_batch, int micro_batch) {
  WaferTrainingSpec s;
  s.model = small_model();
  s.sequence = 2048;
  s.global_batch = global_batch;
  s.micro_batch = micro_batch;
  return s;
}

}  // namespace

TEST_CASE("The model streams as units whose parameters add up to the model's") {
  const WaferTrainingSpec s = spec(16, 0);
  const std::vector<StreamUnit> units = stream_units(s);
  REQUIRE(units.size() == 10);
  double parameters = 0;
  for (const StreamUnit& u : units) parameters += u.parameters;
  CHECK(parameters == doctest::Approx(train::parameter_count(s.model)).epsilon(1e-12));
  CHECK(units[1].forward_flops == doctest::Approx(train::layer_forward_flops_per_token(s.model, 2048)));
  CHECK(units[1].backward_flops == doctest::Approx(2 * units[1].forward_flops));
  CHECK(units[0].forward_flops == 0);
}

TEST_CASE("With its compute hidden, a step takes its weight stream, plus the last layer's backward") {
  // Gradients and the update cost nothing, and a micro-batch of one sample computes faster than
  // a layer's weights stream in: the wafer waits on every unit's weights.
  WaferTrainingSpec s = spec(16, 1);
  s.gradient_bytes_per_parameter = 0;
  s.update_bytes_per_parameter = 0;
  const WaferCluster c = cluster(16);
  const WaferStep step = weight_streaming_step(s, c);
  REQUIRE(step.layer_forward_compute_s < step.layer_weight_stream_s);
  REQUIRE(step.layer_backward_compute_s < step.layer_weight_stream_s);
  CHECK(step.micro_batches == 1);
  // Each unit's weights stream twice (forward and backward) except the embedding's, whose
  // backward needs none; the first layer's backward is the one compute nothing hides.
  const std::vector<StreamUnit> units = stream_units(s);
  double streams = 0;
  for (const StreamUnit& u : units) {
    const double once = broadcast_seconds(16, c.system, c.memoryx, c.swarmx, u.parameters * 2);
    streams += u.name == "embedding" ? once : 2 * once;
  }
  CHECK(step.weight_stream_s == doctest::Approx(streams).epsilon(1e-12));
  CHECK(step.step_s == doctest::Approx(streams + step.layer_backward_compute_s).epsilon(1e-12));
}

TEST_CASE("With free streams, a step takes its compute: the model's FLOPs at the dense peak times the efficiency") {
  WaferCluster c = cluster(4);
  c.system.io_bytes_per_s = c.memoryx.bytes_per_s = c.memoryx.update_bytes_per_s = c.swarmx.link_bytes_per_s = 1e30;
  c.swarmx.hop_latency_ns = 0;
  const WaferTrainingSpec s = spec(64, 4);
  const WaferStep step = weight_streaming_step(s, c);
  CHECK(step.micro_batches == 4);
  const double per_system_flops = step.model_flops_per_step / 4;
  CHECK(step.compute_s == doctest::Approx(per_system_flops / (10e15 * 0.5)).epsilon(1e-12));
  CHECK(step.step_s == doctest::Approx(step.compute_s).epsilon(1e-9));
  CHECK(step.utilization == doctest::Approx(0.5).epsilon(1e-9));
  // Megatron's count: 6 x parameters x tokens plus attention (12 l s h per token... for rotary, no
  // position table); here checked against the layer formula itself.
  const double tokens = 64.0 * 2048;
  const double forward =
      8 * train::layer_forward_flops_per_token(s.model, 2048) + train::logits_forward_flops_per_token(s.model);
  CHECK(step.model_flops_per_step == doctest::Approx(3 * forward * tokens).epsilon(1e-12));
}

TEST_CASE("Full recomputation adds one forward pass to every layer's backward") {
  WaferTrainingSpec s = spec(16, 1);
  const WaferCluster c = cluster(16);
  const WaferStep plain = weight_streaming_step(s, c);
  s.recompute = train::Recompute::kFull;
  const WaferStep full = weight_streaming_step(s, c);
  CHECK(full.layer_backward_compute_s == doctest::Approx(plain.layer_backward_compute_s * 1.5).epsilon(1e-12));
  CHECK(full.memory.activation_bytes < plain.memory.activation_bytes);
}

TEST_CASE("At the balance point a layer's forward compute equals its weight stream") {
  const WaferCluster c = cluster(16);
  const WaferStep probe = weight_streaming_step(spec(16, 1), c);
  // The stream does not depend on the micro-batch; the compute grows with it.
  const double balance = probe.balance_micro_batch;
  CHECK(balance == doctest::Approx(probe.layer_weight_stream_s / probe.layer_forward_compute_s).epsilon(1e-12));
  const int above = static_cast<int>(balance) + 1;
  const WaferStep at = weight_streaming_step(spec(16 * above, above), c);
  CHECK(at.layer_forward_compute_s > at.layer_weight_stream_s);
  CHECK(at.balance_micro_batch == doctest::Approx(balance).epsilon(1e-12));
  // Above the balance the step is compute-bound: streams hide behind compute, up to one layer's
  // weights before the first compute and the tail of the gradients and updates.
  CHECK(at.step_s >= at.compute_s);
  CHECK(at.step_s < at.compute_s + 3 * at.layer_weight_stream_s + at.layer_update_s * 10);
}

TEST_CASE("Below the balance, more systems at the same per-system batch stream the same weights to each") {
  // A stream-bound step: the step time grows only with the tree's depth, so tokens per second
  // grow almost linearly with the systems.
  const WaferStep one = weight_streaming_step(spec(4, 1), cluster(4));
  const WaferStep many = weight_streaming_step(spec(1024, 1), cluster(1024));
  CHECK(many.swarmx_levels == 5);
  CHECK(one.swarmx_levels == 1);
  CHECK(many.step_s > one.step_s);
  CHECK(many.step_s < one.step_s * 1.01);
  CHECK(many.tokens_per_s / one.tokens_per_s == doctest::Approx(256 * one.step_s / many.step_s).epsilon(1e-12));
}

TEST_CASE("Without a micro-batch, a system runs the largest divisor of its batch that fits the wafer") {
  const WaferCluster c = cluster(1);
  const WaferTrainingSpec s = spec(96, 0);
  const int m = micro_batch_of(s, c);
  REQUIRE(m > 1);
  CHECK(96 % m == 0);
  CHECK(wafer_memory(spec(96, m), c).sram_fits());
  for (int larger = m + 1; larger <= 96; ++larger) {
    if (96 % larger == 0) CHECK_FALSE(wafer_memory(spec(96, larger), c).sram_fits());
  }
  CHECK(weight_streaming_step(s, c).micro_batch == m);
  CHECK(weight_streaming_step(s, c).micro_batches == 96 / m);
  CHECK(micro_batch_of(spec(96, 8), c) == 8);  // a given micro-batch is kept
}

TEST_CASE("Memory limits are violations at the key that breaks them") {
  SUBCASE("MemoryX holds 16 bytes a parameter") {
    WaferCluster c = cluster(4);
    const WaferTrainingSpec s = spec(16, 0);
    c.memoryx.capacity_bytes = train::parameter_count(s.model) * 16 - 1;
    const auto v = first_violation(s, c);
    REQUIRE(v);
    CHECK(v->field == "cluster.memoryx.capacity");
    c.memoryx.capacity_bytes += 1;
    CHECK_FALSE(first_violation(s, c));
  }
  SUBCASE("The wafer holds a micro-batch's activations and two units' weights") {
    const WaferCluster c = cluster(1);
    const auto v = first_violation(spec(4096, 4096), c);
    REQUIRE(v);
    CHECK(v->field == "workload.micro_batch");
    // The hint names the largest micro-batch that fits; it fits, one more does not.
    const std::string prefix = "at most ";
    REQUIRE(v->hint.rfind(prefix, 0) == 0);
    const int most = std::stoi(v->hint.substr(prefix.size()));
    REQUIRE(most > 0);
    const WaferMemory fits = wafer_memory(spec(most, most), c);
    CHECK(fits.sram_fits());
    CHECK_FALSE(wafer_memory(spec(most + 1, most + 1), c).sram_fits());
    CHECK_FALSE(first_violation(spec(most, most), c));
  }
}

TEST_CASE("A figure the vendor does not publish must be supplied") {
  WaferCluster c = cluster(4);
  c.system.peak_dense_flops = 0;
  auto v = first_violation(spec(16, 0), c);
  REQUIRE(v);
  CHECK(v->field == "cluster.system.peak_dense");
  c = cluster(4);
  c.system.compute_efficiency = 0;
  v = first_violation(spec(16, 0), c);
  REQUIRE(v);
  CHECK(v->field == "cluster.system.compute_efficiency");
  CHECK_THROWS_AS(weight_streaming_step(spec(16, 0), c), sim::SpecError);
}

TEST_CASE("Batches the systems cannot share evenly are violations") {
  const WaferCluster c = cluster(4);
  auto v = first_violation(spec(18, 0), c);
  REQUIRE(v);
  CHECK(v->field == "workload.global_batch");
  v = first_violation(spec(16, 3), c);
  REQUIRE(v);
  CHECK(v->field == "workload.micro_batch");
  CHECK_FALSE(first_violation(spec(16, 2), c));
}

TEST_CASE("Input workers stream the next step's samples while it runs: a step lasts at least their time") {
  const WaferTrainingSpec s = spec(64, 4);
  WaferCluster c = cluster(16);
  const WaferStep without = weight_streaming_step(s, c);
  CHECK(without.input_s == 0);
  // Fast workers hide behind the step; slow ones set it: the step's tokens x 12 bytes over their rate.
  c.input_workers = 4;
  c.input_worker.name = "worker";
  c.input_worker.bytes_per_s = 1e9;
  const WaferStep fast = weight_streaming_step(s, c);
  CHECK(fast.input_s == doctest::Approx(64.0 * 2048 * 12 / 4e9));
  CHECK(fast.step_s == without.step_s);
  c.input_worker.bytes_per_s = 1e3;
  const WaferStep slow = weight_streaming_step(s, c);
  CHECK(slow.input_s == doctest::Approx(64.0 * 2048 * 12 / 4e3));
  CHECK(slow.step_s == slow.input_s);
  CHECK(slow.tokens_per_s == doctest::Approx(4e3 / 12));
  // Their rate is not published: workers without one are a violation at its key.
  c.input_worker.bytes_per_s = 0;
  const auto v = first_violation(s, c);
  REQUIRE(v);
  CHECK(v->field == "cluster.input_worker.bandwidth");
}

}  // namespace fathom::wafer
