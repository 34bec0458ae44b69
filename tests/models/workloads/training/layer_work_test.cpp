// What one layer computes under FP8 (Transformer Engine): the linear GEMMs at the FP8 peak,
// each behind a cast-transpose of its BF16 input (forward) or its incoming gradient (backward);
// the attention core, the router and the output layer stay in BF16.
#include "models/workloads/training/layer_work.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "models/compute/roofline.hpp"

using namespace fathom;
using namespace fathom::train;

namespace {

TrainingSpec llama_like(hw::Precision precision) {
  TrainingSpec s;
  s.model.name = "test";
  s.model.layers = 4;
  s.model.hidden = 4096;
  s.model.ffn_hidden = 14336;
  s.model.heads = 32;
  s.model.kv_heads = 8;
  s.model.vocab = 32000;
  s.model.max_sequence = 4096;
  s.model.mlp = MlpKind::kSwiGlu;
  s.model.position = PositionKind::kRotary;
  s.model.experts = 8;
  s.model.top_k = 2;
  s.parallel.tp = 4;
  s.parallel.sequence_parallel = true;
  s.gpus = 4;
  s.sequence = 4096;
  s.global_batch = 4;
  s.micro_batch = 1;
  s.precision = precision;
  s.flash_attention = false;  // the unfused attention core: two GEMMs that must stay BF16
  return s;
}

}  // namespace

TEST_CASE("FP8: a cast-transpose of 4 bytes per element in front of every linear GEMM, forward and backward") {
  const TrainingSpec bf16 = llama_like(hw::Precision::kBf16);
  const TrainingSpec fp8 = llama_like(hw::Precision::kFp8);
  const LayerWork a = transformer_layer_work(bf16);
  const LayerWork b = transformer_layer_work(fp8);
  auto cast_bytes = [](const Phase& p) {
    double bytes = 0;
    int kernels = 0;
    for (const auto& k : p.kernels) {
      if (k.name == "fp8_cast_transpose") {
        bytes += k.bytes;
        ++kernels;
      }
    }
    return std::pair{bytes, kernels};
  };
  CHECK(cast_bytes(a.forward).second == 0);
  CHECK(cast_bytes(a.backward).second == 0);
  // Per TP rank: T = 4096 tokens, h = 4096, q = h / 4, kv = 8 / 4 heads x 128, f = 14336 / 4;
  // experts see T x top_k tokens.
  const double t = 4096, h = 4096, q = 1024, kv = 256, f = 3584, tx = 2 * t;
  const double forward_elements = t * h + t * q + tx * h + tx * f;                  // the four GEMMs' inputs
  const double backward_elements = t * (q + 2 * kv) + t * h + tx * 2 * f + tx * h;  // their outputs' gradients
  CHECK(cast_bytes(b.forward) == std::pair{4 * forward_elements, 4});
  CHECK(cast_bytes(b.backward) == std::pair{4 * backward_elements, 4});
  // Everything else is the BF16 layer's work, kernel for kernel.
  CHECK(b.forward.kernels.size() == a.forward.kernels.size() + 4);
  CHECK(b.backward.kernels.size() == a.backward.kernels.size() + 4);
}

TEST_CASE("FP8: linear GEMMs run at the FP8 peak; attention core, router and logits keep BF16's") {
  hw::AcceleratorSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {67e12, 494e12, 989e12, 1979e12};
  gpu.hbm_bytes_per_s = 1e18;  // no kernel is memory-bound here
  gpu.efficiency.gemm_max = 0.8;
  gpu.efficiency.kernel_overhead_s = 0;
  const TrainingSpec fp8 = llama_like(hw::Precision::kFp8);
  const LayerWork w = transformer_layer_work(fp8);
  const LayerWork out = output_layer_work(fp8);
  std::map<std::string, double> rate;  // FLOP/s each GEMM runs at
  for (const Phase* p : {&w.forward, &out.forward}) {
    for (const auto& k : p->kernels) {
      if (k.kind != compute::KernelKind::kGemm) continue;
      rate[std::string(k.name)] = k.flops / compute::kernel_seconds(gpu, fp8.precision, k);
    }
  }
  for (const char* linear : {"qkv", "attention_projection", "mlp_up", "mlp_down"}) {
    CAPTURE(linear);
    CHECK(rate.at(linear) == doctest::Approx(0.8 * 1979e12));
  }
  for (const char* kept : {"attention_scores", "attention_values", "router", "logits"}) {
    CAPTURE(kept);
    CHECK(rate.at(kept) == doctest::Approx(0.8 * 989e12));
  }
}

TEST_CASE("every GEMM carries its shape; its backward is the input and weight gradients' shapes") {
  // Forward C = A B (m x n, inner k): the input gradient dA = dC B^T is m x k with inner n and
  // the weight gradient dB = A^T dC is k x n with inner m, each as many FLOPs as the forward.
  const TrainingSpec s = llama_like(hw::Precision::kBf16);
  const LayerWork w = transformer_layer_work(s);
  std::map<std::string, compute::GemmShape> forward;
  for (const auto& k : w.forward.kernels) {
    if (k.kind != compute::KernelKind::kGemm) continue;
    REQUIRE(k.shape.known());
    CHECK(k.flops == doctest::Approx(2.0 * k.shape.m * k.shape.n * k.shape.k * k.shape.batch));
    forward[std::string(k.name)] = k.shape;
  }
  // Per TP rank of 4: 4096 tokens; QKV from 4096 to 8 query heads and 2 KV heads of 128 each.
  CHECK(forward.at("qkv").m == 4096);
  CHECK(forward.at("qkv").k == 4096);
  CHECK(forward.at("qkv").n == 1024 + 2 * 256);
  // Attention scores per (micro-batch, local head): 8 heads of s x 128 by 128 x s.
  CHECK(forward.at("attention_scores").batch == 8);
  CHECK(forward.at("attention_scores").m == 4096);
  CHECK(forward.at("attention_scores").n == 4096);
  CHECK(forward.at("attention_scores").k == 128);
  CHECK(forward.at("attention_values").n == 128);
  CHECK(forward.at("attention_values").k == 4096);
  // The experts (8 over EP 1) as one grouped GEMM: 8 GEMMs over 4096 * 2 / 8 routed tokens each.
  CHECK(forward.at("mlp_up").batch == 8);
  CHECK(forward.at("mlp_up").m == 1024);
  CHECK(forward.at("mlp_up").n == 2 * 14336 / 4);
  std::map<std::string, int> seen;
  for (const auto& k : w.backward.kernels) {
    if (k.kind != compute::KernelKind::kGemm) continue;
    const std::string name(k.name);
    REQUIRE(forward.count(name) == 1);
    const compute::GemmShape f = forward.at(name);
    const int i = seen[name]++;
    const compute::GemmShape expected = i == 0 ? compute::GemmShape{f.m, f.k, f.n, f.batch}   // input gradient
                                               : compute::GemmShape{f.k, f.n, f.m, f.batch};  // weight gradient
    CHECK_MESSAGE(k.shape.m == expected.m, name);
    CHECK_MESSAGE(k.shape.n == expected.n, name);
    CHECK_MESSAGE(k.shape.k == expected.k, name);
    CHECK_MESSAGE(k.shape.batch == expected.batch, name);
  }
  for (const auto& [name, count] : seen) CHECK_MESSAGE(count == 2, name);
  CHECK(seen.size() == forward.size());  // every forward GEMM, the router's included
}

TEST_CASE("gradient accumulation: unfused, an add of every weight's gradient into the buffer per micro-batch") {
  TrainingSpec spec = llama_like(hw::Precision::kBf16);
  spec.parallel.dp = 4;
  // One rank's linear weights in one layer (tp 4, 8 local experts, SwiGLU): QKV h x (h/4 + 2 kv
  // columns of one KV head pair's 2 x 128), projection h/4 x h, router h x 8, and per expert
  // up h x 2f and down f x h with f = 14336 / 4.
  const double h = 4096, f = 14336.0 / 4;
  const double weights = h * (1024 + 2 * 256) + 1024 * h + h * 8 + 8 * (h * 2 * f + f * h);
  auto accumulated = [](const Phase& p) {
    double bytes = 0;
    int kernels = 0;
    for (const auto& k : p.kernels) {
      if (k.name == "grad_accumulation") {
        CHECK(k.kind == compute::KernelKind::kMemory);
        bytes += k.bytes;
        ++kernels;
      }
    }
    return std::pair{bytes, kernels};
  };
  CHECK(accumulated(transformer_layer_work(spec).backward).second == 0);  // fused: in the GEMM's epilogue

  spec.parallel.grad_accumulation = GradAccumulation::kFp32;  // read 2 + 4, write 4
  spec.recompute = Recompute::kFull;
  const LayerWork fp32 = transformer_layer_work(spec);
  CHECK(accumulated(fp32.backward).first == doctest::Approx(10 * weights));
  CHECK(accumulated(fp32.backward).second == 5);  // QKV, projection, router, up, down
  CHECK(accumulated(fp32.forward).second == 0);
  CHECK(accumulated(fp32.recompute).second == 0);

  spec.parallel.grad_accumulation = GradAccumulation::kFp32Cast;  // cast: read 2, write 4; add: read 4 + 4, write 4
  CHECK(accumulated(transformer_layer_work(spec).backward).first == doctest::Approx(18 * weights));

  spec.parallel.grad_accumulation = GradAccumulation::kBf16;  // read 2 + 2, write 2
  CHECK(accumulated(transformer_layer_work(spec).backward).first == doctest::Approx(6 * weights));
  spec.parallel.zero_stage = 3;  // each rank accumulates its shard of the reduced gradient
  CHECK(accumulated(transformer_layer_work(spec).backward).first == doctest::Approx(6 * weights / 4));
  spec.parallel.zero_stage = 1;

  // The embedding table (vocab / tp x h) and the output projection each; a tied projection on
  // the embedding's own stage (pp 1) shares its buffer and is added once.
  const double table = 32000.0 / 4 * h;
  CHECK(accumulated(embedding_work(spec).backward).first == doctest::Approx(6 * table));
  CHECK(accumulated(output_layer_work(spec).backward).first == doctest::Approx(6 * table));
  spec.model.tied_embeddings = true;
  CHECK(accumulated(output_layer_work(spec).backward).second == 0);
  spec.parallel.pp = 2;
  CHECK(accumulated(output_layer_work(spec).backward).first == doctest::Approx(6 * table));
}

TEST_CASE("gradient accumulation by PyTorch's autograd: no add for the first micro-batch, one for each later one") {
  TrainingSpec spec = llama_like(hw::Precision::kBf16);
  spec.parallel.dp = 1;
  spec.parallel.grad_accumulation = GradAccumulation::kBf16;
  auto bytes = [](const TrainingSpec& s) {
    double b = 0;
    for (const auto& k : transformer_layer_work(s).backward.kernels) {
      if (k.name == "grad_accumulation") b += k.bytes;
    }
    return b;
  };
  spec.global_batch = 4;  // 4 micro-batches: 3 adds over the step, 3/4 of one per micro-batch
  const double every = bytes(spec);
  spec.parallel.grad_accumulation = GradAccumulation::kAutograd;
  CHECK(bytes(spec) == doctest::Approx(every * 3 / 4));
  spec.global_batch = 1;  // one micro-batch: its gradient is kept, nothing is added
  CHECK(bytes(spec) == 0);
}

TEST_CASE("biases kept out of the GEMMs: QKV's bias added after its GEMM, each bias gradient a reduction") {
  TrainingSpec spec = llama_like(hw::Precision::kBf16);
  spec.model.mlp = MlpKind::kGelu;  // a GPT-style layer: biased linears
  spec.model.experts = 1;
  spec.model.top_k = 1;
  spec.model.kv_heads = 32;
  spec.model.ffn_hidden = 4 * 4096;
  spec.parallel.sequence_parallel = false;
  spec.recompute = Recompute::kFull;
  auto bytes = [](const Phase& p, const std::string& name) {
    double b = 0;
    int kernels = 0;
    for (const auto& k : p.kernels) {
      if (k.name == name) {
        b += k.bytes;
        ++kernels;
      }
    }
    return std::pair{b, kernels};
  };
  const LayerWork fused = transformer_layer_work(spec);
  CHECK(bytes(fused.forward, "qkv_bias").second == 0);
  CHECK(bytes(fused.backward, "bias_gradient").second == 0);

  spec.linear_bias = LinearBias::kSeparate;
  const LayerWork separate = transformer_layer_work(spec);
  // 4096 tokens through tp 4: QKV's 3 x 1024 output columns read and written in 2 bytes.
  const double tokens = 4096, h = 4096;
  CHECK(bytes(separate.forward, "qkv_bias").first == doctest::Approx(4 * tokens * 3 * h / 4));
  CHECK(bytes(separate.recompute, "qkv_bias").second == 1);  // the recomputed forward adds it again
  CHECK(bytes(separate.backward, "qkv_bias").second == 0);   // its gradient is the reduction below
  // The four gradients read once: QKV (3h/4 columns), projection (h: its bias follows the
  // all-reduce), fc1 (4h/4) and fc2 (h).
  const auto grads = bytes(separate.backward, "bias_gradient");
  CHECK(grads.second == 4);
  CHECK(grads.first == doctest::Approx(2 * tokens * (3 * h / 4 + h + h + h)));

  spec.model.mlp = MlpKind::kSwiGlu;  // no biases: nothing to add or reduce
  CHECK(bytes(transformer_layer_work(spec).backward, "bias_gradient").second == 0);
}
