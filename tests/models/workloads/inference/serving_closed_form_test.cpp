// The serving model against closed forms: one request alone on a plain roofline accelerator
// (no overheads, every efficiency 1) has a TTFT equal to its prompt's forward pass and a TPOT
// equal to the mean of its decode passes, each written out here from the model's shapes; a
// replica that serves one request at a time under Poisson arrivals is an M/D/1 queue whose
// mean wait is Pollaczek-Khinchine's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/workloads/inference/iteration_model.hpp"
#include "models/workloads/inference/service.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "tests/models/workloads/inference/serving_fixtures.hpp"
#include "tests/support/queueing.hpp"

using namespace fathom;

namespace {

// One layer's (or the output layer's) GEMM on the plain roofline, BF16 weights.
double gemm(double m, double n, double k) {
  return std::max(2 * m * n * k / 1e15, (k * n * 2 + m * (k + n) * 2) / 2e12);
}

// A forward pass over `n` new tokens of one sequence that has `p` in its cache, closed form.
double forward(double p, double n) {
  const double h = 1024, kv = 256, ffn = 4096, vocab = 32000, layers = 4, heads_dim = 1024;
  const double gemms = gemm(n, h + 2 * kv, h) + gemm(n, h, h) + gemm(n, 2 * ffn, h) + gemm(n, h, ffn);
  const double pairs = n * p + n * (n + 1) / 2;
  const double attention =
      std::max(4 * heads_dim * pairs / 1e15, ((p + n) * 2 * kv * 2 + 2 * n * heads_dim * 2) / 2e12);
  const double elementwise = (2 * 4 * n * h * 2 + 2 * n * (h + kv) * 2 + 3 * n * ffn * 2) / 2e12;
  const double output = gemm(1, vocab, h) + vocab * 4 / 2e12;
  return layers * (gemms + attention + elementwise) + output;
}

infer::ServiceSpec one_replica(int max_seqs) {
  infer::ServiceSpec s;
  s.serving.max_seqs = max_seqs;
  s.serving.max_batched_tokens = 8192;
  s.kv_blocks = 100000;
  return s;
}

}  // namespace

TEST_CASE("one request alone: TTFT is the prompt's forward pass, TPOT the mean of its decodes") {
  const infer::ServiceSpec spec = one_replica(8);
  const infer::IterationModel model(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  for (const auto& [prompt, output] : {std::pair{467, 256}, std::pair{2048, 2}, std::pair{1, 64}}) {
    CAPTURE(prompt);
    const std::vector<infer::Request> requests{{sim::SimTime::zero(), prompt, output}};
    const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
    const infer::ServiceMetrics m = infer::summarize(requests, run, {});
    REQUIRE(m.finished == 1);
    CHECK(m.ttft_s.p50 == doctest::Approx(forward(0, prompt)).epsilon(1e-6));
    double decodes = 0;
    for (int g = 1; g < output; ++g) decodes += forward(prompt + g - 1, 1);
    CHECK(m.tpot_s.p50 == doctest::Approx(decodes / (output - 1)).epsilon(1e-6));
    CHECK(m.e2e_s.p50 == doctest::Approx(forward(0, prompt) + decodes).epsilon(1e-6));
    CHECK(run.replicas[0].iterations == output);
  }
}

TEST_CASE("a chunked prompt takes ceil(prompt / budget) iterations, each a chunk's forward pass") {
  infer::ServiceSpec spec = one_replica(8);
  spec.serving.max_batched_tokens = 512;
  const infer::IterationModel model(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  const std::vector<infer::Request> requests{{sim::SimTime::zero(), 1300, 2}};
  const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
  const infer::ServiceMetrics m = infer::summarize(requests, run, {});
  // Chunks of 512, 512 and 276; the output layer runs only on the last.
  const double out = gemm(1, 32000, 1024) + 32000 * 4 / 2e12;
  const double expected = (forward(0, 512) - out) + (forward(512, 512) - out) + forward(1024, 276);
  CHECK(m.ttft_s.p50 == doctest::Approx(expected).epsilon(1e-6));
  CHECK(run.replicas[0].iterations == 4);
}

TEST_CASE("disaggregated: the prompt's pass on the prefill replica, the KV cache's transfer, then the decodes") {
  infer::ServiceSpec spec = one_replica(8);
  infer::DisaggregationSpec& d = spec.disaggregation;
  d.prefill_replicas = 1;
  d.prefill = spec.serving;
  d.prefill_kv_blocks = 100000;
  d.kv_bytes_per_token = 2.0 * 4 * 2 * 128 * 2;  // K and V, 4 layers, 2 KV heads of 128, 2 bytes
  d.same_node_bytes_per_s = 1e11;
  d.cross_node_bytes_per_s = 1e10;
  d.transfer_latency = sim::SimTime::from_ns(5000);
  const infer::IterationModel model(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  for (const int node_of_prefill : {0, 1}) {
    CAPTURE(node_of_prefill);
    d.node_of = {0, node_of_prefill};
    const int prompt = 2048, output = 64;
    const std::vector<infer::Request> requests{{sim::SimTime::zero(), prompt, output}};
    const infer::ServiceRun run = infer::run_service(requests, spec, model, 1, {}, &model);
    const infer::ServiceMetrics m = infer::summarize(requests, run, {});
    REQUIRE(m.finished == 1);
    const double rate = node_of_prefill == 0 ? 1e11 : 1e10;
    const double transfer = 5e-6 + d.kv_bytes_per_token * prompt / rate;
    double decodes = 0;
    for (int g = 1; g < output; ++g) decodes += forward(prompt + g - 1, 1);
    CHECK(m.ttft_s.p50 == doctest::Approx(forward(0, prompt)).epsilon(1e-6));
    CHECK(m.kv_transfer_s.p50 == doctest::Approx(transfer).epsilon(1e-6));
    CHECK(m.e2e_s.p50 == doctest::Approx(forward(0, prompt) + transfer + decodes).epsilon(1e-6));
    CHECK(run.requests[0].prefill_replica == 1);
    CHECK(run.requests[0].replica == 0);
    // The decode replica only decodes: each of its iterations one token.
    CHECK(run.replicas[0].iterations == output - 1);
    CHECK(run.replicas[0].tokens == output - 1);
    CHECK(run.replicas[1].iterations == 1);
  }
}

TEST_CASE("one request at a time under Poisson arrivals is M/D/1: the mean wait is Pollaczek-Khinchine's") {
  const infer::ServiceSpec spec = one_replica(1);
  const infer::IterationModel model(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  const int prompt = 512, output = 32;
  double service = forward(0, prompt);
  for (int g = 1; g < output; ++g) service += forward(prompt + g - 1, 1);
  for (const double rho : {0.5, 0.8}) {
    CAPTURE(rho);
    infer::RequestSpec r;
    r.rate = rho / service;
    r.count = 60000;
    r.prompt.a = prompt;
    r.output.a = output;
    const auto requests = infer::generate_requests(r, 7);
    const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
    std::vector<double> waits;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      waits.push_back((run.requests[i].first_token - requests[i].arrival).to_seconds() - forward(0, prompt));
    }
    const double expected = rho * service / (2 * (1 - rho));
    const auto ci = test::batch_means_95(waits, 10000, 2500);
    CAPTURE(ci.mean);
    CAPTURE(ci.half);
    CHECK(std::abs(ci.mean - expected) <= ci.half);
  }
}

TEST_CASE("layers of two kinds: the iteration's GEMMs are the MoE layers' and the dense layers' together") {
  // A MoE layer every other layer is the mean of a model all MoE and a model all dense of the
  // dense layers' width; a shared expert adds one MLP of ffn_hidden over every token.
  train::TransformerSpec moe = test::small_model();
  moe.experts = 8;
  moe.top_k = 2;
  train::TransformerSpec dense = test::small_model();
  dense.ffn_hidden = 8192;
  train::TransformerSpec mixed = moe;
  mixed.moe_every = 2;
  mixed.dense_ffn_hidden = 8192;
  train::TransformerSpec shared = mixed;
  shared.shared_experts = 1;
  infer::ServingSpec serving;
  const auto gemm_time = [&](const train::TransformerSpec& m, std::int64_t tokens) {
    const infer::IterationModel model(serving, m, test::plain_accelerator(), nullptr);
    return model.time({tokens, 1, 1, static_cast<double>(tokens), static_cast<double>(tokens)}).gemm;
  };
  for (const std::int64_t tokens : {1, 16, 512}) {
    CAPTURE(tokens);
    CHECK(gemm_time(mixed, tokens) == doctest::Approx((gemm_time(moe, tokens) + gemm_time(dense, tokens)) / 2));
    const double one_mlp = gemm(tokens, 2 * 4096, 1024) + gemm(tokens, 1024, 4096);
    CHECK(gemm_time(shared, tokens) - gemm_time(mixed, tokens) == doctest::Approx(2 * one_mlp));
  }
}

TEST_CASE("host overhead: an iteration waits iteration_overhead plus sequence_overhead per sequence it runs") {
  infer::ServiceSpec spec = one_replica(8);
  const infer::IterationModel bare(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  spec.serving.iteration_overhead_s = 2e-3;
  spec.serving.sequence_overhead_s = 0.2e-3;
  const infer::IterationModel host(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  for (std::int64_t sequences : {1, 8, 64}) {
    CAPTURE(sequences);
    infer::IterationWork w;
    w.tokens = sequences;
    w.sequences = sequences;
    w.logits = sequences;
    w.attention_pairs = static_cast<double>(sequences) * 500;
    w.kv_read_tokens = static_cast<double>(sequences) * 500;
    const infer::IterationTime t = host.time(w);
    CHECK(t.overhead == doctest::Approx(2e-3 + 0.2e-3 * static_cast<double>(sequences)).epsilon(1e-12));
    CHECK(t.total() - bare.time(w).total() == doctest::Approx(t.overhead).epsilon(1e-9));
  }
  // One request alone: every decode pass pays 2.2 ms more, its TTFT the same once.
  const std::vector<infer::Request> requests{{sim::SimTime::zero(), 467, 64}};
  const infer::ServiceMetrics a = infer::summarize(requests, infer::run_service(requests, spec, host, 1), {});
  const infer::ServiceMetrics b = infer::summarize(requests, infer::run_service(requests, one_replica(8), bare, 1), {});
  CHECK(a.ttft_s.p50 - b.ttft_s.p50 == doctest::Approx(2.2e-3).epsilon(1e-4));
  CHECK(a.tpot_s.p50 - b.tpot_s.p50 == doctest::Approx(2.2e-3).epsilon(1e-4));
}

TEST_CASE("stragglers: a stage's kernels wait for the slowest of its tp GPUs, 1 + sigma e_tp") {
  // TP 4 with the default 1.5% speed spread: e_4 = 1.0294 (the expected maximum of four standard
  // normals), so the kernels take 1.5% longer; the all-reduces and the host's share do not.
  infer::ServiceSpec spec = one_replica(8);
  spec.serving.tp = 4;
  spec.serving.iteration_overhead_s = 1e-3;
  const auto all_reduce = [](double bytes) { return 5e-6 + bytes / 100e9; };
  const infer::IterationModel slowed(spec.serving, test::small_model(), test::plain_accelerator(), all_reduce);
  spec.serving.stragglers.enabled = false;
  const infer::IterationModel nominal(spec.serving, test::small_model(), test::plain_accelerator(), all_reduce);
  for (std::int64_t tokens : {1, 64, 2048}) {
    CAPTURE(tokens);
    infer::IterationWork w;
    w.tokens = tokens;
    w.sequences = 1;
    w.logits = 1;
    w.attention_pairs = static_cast<double>(tokens) * 500;
    w.kv_read_tokens = 500.0 + static_cast<double>(tokens);
    const infer::IterationTime a = slowed.time(w), b = nominal.time(w);
    const double kernels = b.gemm + b.attention + b.elementwise + b.output;
    CHECK(b.straggler == 0);
    CHECK(a.straggler == doctest::Approx(0.015 * 1.0293754 * kernels).epsilon(1e-6));
    CHECK(a.communication == b.communication);
    CHECK(a.overhead == b.overhead);
    CHECK(a.total() == doctest::Approx(b.total() + a.straggler).epsilon(1e-12));
  }
  // One GPU waits for no one.
  spec.serving.tp = 1;
  spec.serving.stragglers.enabled = true;
  const infer::IterationModel alone(spec.serving, test::small_model(), test::plain_accelerator(), nullptr);
  infer::IterationWork w;
  w.tokens = w.sequences = w.logits = 1;
  CHECK(alone.time(w).straggler == 0);
}
