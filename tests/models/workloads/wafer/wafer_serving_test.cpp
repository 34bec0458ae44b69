// Serving on wafers: a wafer as the inference model's accelerator, the pipeline depth that holds
// a model, and a decode's time against its closed form (the dataflow latency of every layer plus
// the roofline of its compute and SRAM reads).
#include "models/workloads/wafer/wafer_serving.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "models/workloads/inference/iteration_model.hpp"
#include "tests/models/workloads/wafer/wafer_fixtures.hpp"
#include "topologies/cluster.hpp"

namespace fathom::wafer {

namespace {

hw::WaferSystemSpec cs3() { return test::test_wafer(); }

// Llama 3.1's shapes (the model zoo's entries; docs/models.md).
train::TransformerSpec llama(int layers, int hidden, int ffn, int heads, int vocab = 128256) {
  train::TransformerSpec m;
  m.name = "llama";
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = ffn;
  m.heads = heads;
  m.kv_heads = 8;
  m.vocab = vocab;
  m.max_sequence = 131072;
  m.mlp = train::MlpKind::kSwiGlu;
  m.position = train::PositionKind::kRotary;
  return m;
}

}  // namespace

TEST_CASE("A wafer is an accelerator of its SRAM, its dense peak and its efficiencies") {
  const hw::AcceleratorSpec a = as_accelerator(cs3());
  CHECK(a.peak(hw::Precision::kBf16) == 10e15);
  CHECK(a.peak(hw::Precision::kFp8) == 0);
  CHECK(a.hbm_bytes == 44e9);
  CHECK(a.hbm_bytes_per_s == 21e15);
  CHECK(a.efficiency.gemm_max == 0.5);
  CHECK(a.efficiency.attention == 0.5);
  CHECK(a.efficiency.hbm == 0.8);
  CHECK(a.efficiency.kernel_overhead_s == 0);
  CHECK(a.efficiency.gemm_curve.empty());
  CHECK(a.layer_latency_s == 10e-6);
  CHECK(a.runtime_reserve_bytes == 0);
}

TEST_CASE("A replica takes the fewest wafers that hold its weights beside a KV cache") {
  const hw::AcceleratorSpec a = as_accelerator(cs3());
  const infer::ServingSpec serving;  // 90% of the SRAM for weights, activations and the cache
  // 16-bit weights: 8B (16 GB) on one wafer, 70B (141 GB) on four ("70B models fit on as few as
  // four systems", Cerebras, Aug 2024).
  CHECK(fewest_wafers(serving, llama(32, 4096, 14336, 32), a) == 1);
  CHECK(fewest_wafers(serving, llama(80, 8192, 28672, 64), a) == 4);
  // 405B (811 GB): whole layers of 6.5 GB and the 4.2 GB embedding on the first stage leave no
  // cache at 21 to 31 stages; at 32 (four layers each) it fits.
  const train::TransformerSpec big = llama(126, 16384, 53248, 128);
  const int stages = fewest_wafers(serving, big, a);
  CHECK(stages == 32);
  infer::ServingSpec at = serving;
  at.pp = stages;
  CHECK(infer::kv_budget(at, big, a).blocks > 0);
  at.pp = stages - 1;
  CHECK(infer::kv_budget(at, big, a).blocks == 0);
  infer::ServingSpec halves = serving;
  halves.tp = 2;  // each stage two wafers that split every layer
  CHECK(fewest_wafers(halves, llama(80, 8192, 28672, 64), a) == 2);
}

TEST_CASE("A decode of one sequence: every layer's dataflow latency plus the roofline of its reads") {
  const hw::AcceleratorSpec a = as_accelerator(cs3());
  const train::TransformerSpec m = llama(32, 4096, 14336, 32);
  const infer::IterationModel model(infer::ServingSpec{}, m, a, nullptr);
  infer::IterationWork decode;
  decode.tokens = 1;
  decode.sequences = 1;
  decode.logits = 1;
  decode.attention_pairs = 1000;
  decode.kv_read_tokens = 1000;
  const infer::IterationTime t = model.time(decode);
  CHECK(t.latency == doctest::Approx(32 * 10e-6).epsilon(1e-12));
  // One token through a layer: its weights read once (bytes over the SRAM's rate at its share)
  // or its FLOPs (2 a weight) at the dense peak's share, whichever is longer: here the FLOPs, for
  // every GEMM alike (the token's activations are bytes beside the weights, not FLOPs).
  const double reads = train::layer_parameter_count(m) * 2 / (21e15 * 0.8);
  const double flops = 2 * (train::layer_parameter_count(m) - 2 * 4096.0) / (10e15 * 0.5);  // the norms are not GEMMs
  REQUIRE(flops > reads);
  CHECK(t.gemm == doctest::Approx(32 * flops).epsilon(1e-9));
  CHECK(t.total() == doctest::Approx(t.latency + t.gemm + t.attention + t.elementwise + t.output).epsilon(1e-12));
  CHECK(t.latency / t.total() > 0.99);  // at one token, the dataflow latency is the decode
}

TEST_CASE("The serving cluster: groups of tensor-parallel wafers on one switch, every system a link") {
  const topo::ClusterSpec c = serving_cluster(8, 2, cs3(), 1000);
  CHECK(c.nodes == 4);
  CHECK(c.node.gpus == 2);
  CHECK(c.node.nics == 2);
  CHECK(c.node.nvlink_bytes_per_s == 150e9);
  CHECK(c.node.nic_bytes_per_s == 150e9);
  const topo::Topology t = topo::build_cluster(c);
  int wafers = 0;
  for (const topo::Vertex& v : t.vertices()) wafers += v.kind == topo::VertexKind::kGpu ? 1 : 0;
  CHECK(wafers == 8);
}

TEST_CASE("Serving needs the figures Cerebras does not publish") {
  hw::WaferSystemSpec s = cs3();
  CHECK_FALSE(serving_violation(s));
  s.layer_latency_s = 0;
  auto v = serving_violation(s);
  REQUIRE(v);
  CHECK(v->field == "cluster.system.layer_latency");
  s = cs3();
  s.sram_efficiency = 0;
  v = serving_violation(s);
  REQUIRE(v);
  CHECK(v->field == "cluster.system.sram_efficiency");
  s = cs3();
  s.peak_dense_flops = 0;
  v = serving_violation(s);
  REQUIRE(v);
  CHECK(v->field == "cluster.system.peak_dense");
}

}  // namespace fathom::wafer
