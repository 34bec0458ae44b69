#include "models/workloads/training/layer_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

namespace fathom::train {

namespace {

using compute::Kernel;
using compute::KernelKind;

constexpr double kAct = 2;   // bytes per activation element (BF16)
constexpr double kFp32 = 4;  // bytes per FP32 element

// Shapes one rank sees for one micro-batch.
struct Shape {
  double tokens;     // b * s / cp: tokens through this rank's GEMMs
  double ew_tokens;  // tokens of the element-wise kernels (/ tp with sequence parallelism)
  double seq;        // s / cp: this rank's queries
  double full_seq;   // s: keys each query meets
  double h;
  double f;        // MLP inner width per expert, per TP rank
  double q_cols;   // query columns per TP rank (h / t)
  double kv_cols;  // key (= value) columns per TP rank (>= one head: KV heads are replicated when t > kv_heads)
  double heads;    // query heads per TP rank
  double b;
  double expert_tokens;  // tokens each rank's MLP processes: tokens * top_k (MoE) or tokens
  int tp;
};

Shape shape_of(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const ParallelSpec& p = spec.parallel;
  Shape s{};
  s.b = spec.micro_batch;
  s.seq = static_cast<double>(spec.sequence) / p.cp;
  s.full_seq = spec.sequence;
  s.tokens = s.b * s.seq;
  s.ew_tokens = p.sequence_parallel ? s.tokens / p.tp : s.tokens;
  s.h = m.hidden;
  s.f = static_cast<double>(m.ffn_hidden) / p.tp;
  const double head_dim = static_cast<double>(m.hidden) / m.heads;
  s.q_cols = static_cast<double>(m.hidden) / p.tp;
  s.kv_cols = std::max(1.0, static_cast<double>(m.kv_heads) / p.tp) * head_dim;
  s.heads = static_cast<double>(m.heads) / p.tp;
  s.expert_tokens = m.experts > 1 ? s.tokens * m.top_k : s.tokens;
  s.tp = p.tp;
  return s;
}

// A whole number of rows or columns (TP-split widths are whole in every real layout; a
// vocabulary split unevenly is padded up, as Megatron-LM pads it).
std::int64_t dim(double x) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(x - 1e-9))); }

// `batch` GEMMs of (rows x inner) by (inner x cols): 2 batch rows inner cols FLOPs; `bytes` read
// and written (by default both operands and the result of each).
Kernel batched_gemm(std::string_view name, double batch, double rows, double inner, double cols, double bytes = -1) {
  if (bytes < 0) bytes = batch * kAct * (rows * inner + inner * cols + rows * cols);
  return {name,
          KernelKind::kGemm,
          2 * batch * rows * inner * cols,
          bytes,
          false,
          compute::GemmShape{dim(rows), dim(cols), dim(inner), dim(batch)}};
}
Kernel gemm(std::string_view name, double rows, double inner, double cols) {
  return batched_gemm(name, 1, rows, inner, cols);
}

// The backward of a GEMM C = A B (m x n from m x k by k x n): the input gradient dA = dC B^T
// (m x k, inner n) and the weight gradient dB = A^T dC (k x n, inner m), each as many FLOPs as
// the forward but with its own shape.
void gemm_backward(std::vector<Kernel>& out, const Kernel& forward) {
  const compute::GemmShape f = forward.shape;
  const auto m = static_cast<double>(f.m), n = static_cast<double>(f.n), k = static_cast<double>(f.k);
  const auto b = static_cast<double>(f.batch);
  Kernel input_grad = batched_gemm(forward.name, b, m, n, k);
  Kernel weight_grad = batched_gemm(forward.name, b, k, m, n);
  input_grad.keeps_bf16 = weight_grad.keeps_bf16 = forward.keeps_bf16;
  out.push_back(input_grad);
  out.push_back(weight_grad);
}

// A GEMM that Transformer Engine leaves in BF16 when the linear layers run in FP8.
Kernel bf16(Kernel k) {
  k.keeps_bf16 = true;
  return k;
}

// FP8 (Transformer Engine): before an FP8 GEMM its BF16 operand is cast to FP8 by a
// cast-transpose kernel that also records the amax for the next step's scale: it reads 2 bytes
// and writes the FP8 value and its transpose (1 + 1) per element. In forward that is the GEMM's
// input (rows x inner); in backward the incoming gradient (rows x cols). Nothing under BF16.
constexpr std::string_view kFp8Cast = kFp8CastKernel;
void fp8_cast(std::vector<Kernel>& to, const TrainingSpec& spec, double elements) {
  if (spec.precision == hw::Precision::kFp8) to.push_back({kFp8Cast, KernelKind::kMemory, 0, (kAct + 2) * elements});
}

Kernel memory(std::string_view name, double bytes) { return {name, KernelKind::kMemory, 0, bytes}; }
// A memory-bound kernel of a class that calibration measures by itself (hw::MemoryKernel): the
// accelerator's measured cost of that class times it where it has one (compute::kernel_seconds).
Kernel memory(std::string_view name, double bytes, hw::MemoryKernel measured_as) {
  Kernel k = memory(name, bytes);
  k.memory_kernel = measured_as;
  return k;
}

// Gradient accumulation (docs/training.md): unless the weight-gradient GEMM adds into the
// gradient buffer itself, an element-wise kernel after it reads the 16-bit gradient of `weights`
// elements and the buffer, and writes the buffer, every micro-batch. PyTorch's autograd skips
// the first micro-batch's add: its m - 1 adds are spread over the m micro-batches, so that the
// step holds them exactly. Under ZeRO-2 and -3 a rank accumulates only its shard of the reduced
// gradient, 1 / (dp x cp) of it.
constexpr std::string_view kGradAccumulation = "grad_accumulation";
constexpr std::string_view kQkvBias = "qkv_bias";
void grad_accumulation(std::vector<Kernel>& out, const TrainingSpec& spec, double weights) {
  const ParallelSpec& p = spec.parallel;
  if (p.grad_accumulation == GradAccumulation::kFused) return;
  // Bytes per weight element: read the gradient and the buffer, write the buffer; a cast first
  // writes the gradient as an FP32 temporary that the add then reads.
  const bool fp32 =
      p.grad_accumulation == GradAccumulation::kFp32 || p.grad_accumulation == GradAccumulation::kFp32Cast;
  const double buffer = fp32 ? kFp32 : kAct;
  const bool cast = p.grad_accumulation == GradAccumulation::kFp32Cast;
  const double bytes = (cast ? (kAct + kFp32) + kFp32 : kAct) + 2 * buffer;
  const double shard = p.zero_stage >= 2 ? std::max(1.0, static_cast<double>(p.dp) * p.cp) : 1.0;
  const int m = std::max(1, spec.micro_batches());
  const double share = p.grad_accumulation == GradAccumulation::kAutograd ? (m - 1.0) / m : 1.0;
  if (share <= 0) return;
  out.push_back(memory(kGradAccumulation, bytes * weights / shard * share));
}
// The weight of a GEMM's forward (inner x cols, per batch entry): its gradient's elements.
double weight_elements(const Kernel& forward) {
  const compute::GemmShape& f = forward.shape;
  return static_cast<double>(f.batch) * static_cast<double>(f.k) * static_cast<double>(f.n);
}

// The tensor-parallel collective after a row-parallel GEMM (forward) or before a column-parallel
// one (backward): all-reduce, or reduce-scatter with sequence parallelism; its partner before a
// column-parallel GEMM is an all-gather (sequence parallelism only). Bytes are the full
// activation, NCCL's convention for all-reduce, reduce-scatter input and all-gather output.
void tp_reduce(Phase& phase, const TrainingSpec& spec, double activation_bytes, std::string_view gemm = {}) {
  if (spec.parallel.tp == 1) return;
  const bool sp = spec.parallel.sequence_parallel;
  phase.comms.push_back(
      {CommGroup::kTp, sp ? coll::Op::kReduceScatter : coll::Op::kAllReduce, activation_bytes, false, sp ? gemm : ""});
}
void tp_gather(Phase& phase, const TrainingSpec& spec, double activation_bytes, std::string_view gemm = {}) {
  if (spec.parallel.tp == 1 || !spec.parallel.sequence_parallel) return;
  phase.comms.push_back({CommGroup::kTp, coll::Op::kAllGather, activation_bytes, false, gemm});
}

// Attention core for one micro-batch: fused (one kernel) or Megatron's unfused path (two
// batched GEMMs around a fused scale-mask-softmax and dropout). Appends forward kernels to
// `fwd` and backward kernels to `bwd`.
void attention_core(const TrainingSpec& spec, const Shape& s, std::vector<Kernel>& fwd, std::vector<Kernel>& bwd) {
  const double head_dim = s.h / spec.model.heads;
  // Scores and values over the keys this rank's queries meet: 2 * (2 * q * k * d) per head.
  const double full_flops = 4 * s.b * s.heads * s.seq * s.full_seq * head_dim;
  if (spec.flash_attention) {
    // A causal kernel skips the masked half of the blocks. Its backward recomputes the scores
    // and runs four more products: 2.5 times the forward's work (FlashAttention-2).
    const double flops = 0.5 * full_flops;
    const double io = kAct * s.b * s.seq * (s.q_cols + 2 * s.kv_cols + s.q_cols);
    fwd.push_back({"flash_attention", KernelKind::kAttention, flops, io});
    bwd.push_back({"flash_attention_backward", KernelKind::kAttention, 2.5 * flops, 2 * io});
    return;
  }
  const double scores = s.b * s.heads * s.seq * s.full_seq;  // elements of the score matrix
  // Per (micro-batch, local head): scores = Q K^T (seq x head_dim by head_dim x full_seq),
  // values = P V (seq x full_seq by full_seq x head_dim).
  const double batch = s.b * s.heads;
  const Kernel qk = bf16(batched_gemm("attention_scores", batch, s.seq, head_dim, s.full_seq,
                                      kAct * (s.b * s.seq * (s.q_cols + s.kv_cols) + scores)));
  const Kernel av = bf16(batched_gemm("attention_values", batch, s.seq, s.full_seq, head_dim,
                                      kAct * (scores + s.b * s.seq * (s.kv_cols + s.q_cols))));
  fwd.push_back(qk);
  fwd.push_back(memory("scale_mask_softmax", scores * 2 * kAct));
  fwd.push_back(memory("attention_dropout", scores * (2 * kAct + 1)));
  fwd.push_back(av);
  // The values come out per head, [b, heads, s, d]; Megatron-LM permutes them back to [s, b, h]
  // with a copy (read and write), and its backward copies the gradient the other way.
  const Kernel context_copy = memory("context_transpose", 2 * kAct * s.b * s.seq * s.q_cols);
  fwd.push_back(context_copy);
  bwd.push_back(context_copy);
  gemm_backward(bwd, av);
  bwd.push_back(memory("attention_dropout_backward", scores * (2 * kAct + 1)));
  bwd.push_back(memory("softmax_backward", scores * 3 * kAct));
  gemm_backward(bwd, qk);
}

void append(std::vector<Kernel>& to, const std::vector<Kernel>& from) { to.insert(to.end(), from.begin(), from.end()); }

}  // namespace

LayerWork transformer_layer_work(const TrainingSpec& spec) {
  const Shape s = shape_of(spec);
  const TransformerSpec& m = spec.model;
  const double act = kAct * s.b * s.seq * s.h;  // one full activation tensor [b, s/cp, h]
  LayerWork w;
  Phase& fwd = w.forward;
  Phase& bwd = w.backward;
  std::vector<Kernel> attention_fwd;
  std::vector<Kernel> attention_bwd;

  // Attention block: norm, (all-gather), QKV, core, projection, (reduce), bias-dropout-add.
  const Kernel norm = memory("norm", 2 * kAct * s.ew_tokens * s.h, hw::MemoryKernel::kNorm);
  const Kernel qkv = gemm("qkv", s.tokens, s.h, s.q_cols + 2 * s.kv_cols);
  const Kernel proj = gemm("attention_projection", s.tokens, s.q_cols, s.h);
  const Kernel residual = memory("bias_dropout_add", (3 * kAct + 1) * s.ew_tokens * s.h, hw::MemoryKernel::kResidual);
  attention_core(spec, s, attention_fwd, attention_bwd);

  fwd.kernels.push_back(norm);
  tp_gather(fwd, spec, act, "qkv");
  fp8_cast(fwd.kernels, spec, s.tokens * s.h);
  fwd.kernels.push_back(qkv);
  // Biases kept out of the GEMMs (docs/training.md, "Biases"): 2021 PyTorch's linear on a 3-D
  // input ran the GEMM, then added QKV's bias in a kernel of its own (read and write the output);
  // the other three biases are added inside the fused bias-GeLU and bias-dropout-add kernels.
  const bool separate_bias = m.mlp == MlpKind::kGelu && spec.linear_bias == LinearBias::kSeparate;
  const double qkv_outputs = s.tokens * (s.q_cols + 2 * s.kv_cols);
  if (separate_bias) fwd.kernels.push_back(memory(kQkvBias, 2 * kAct * qkv_outputs));
  // Rotary position embedding (RoPE): Q and K rotated in place after the QKV GEMM, read and
  // written once each (Transformer Engine's fused kernel); its backward rotates their gradients.
  if (m.position == PositionKind::kRotary) {
    fwd.kernels.push_back(memory("rotary", 2 * kAct * s.tokens * (s.q_cols + s.kv_cols), hw::MemoryKernel::kRotary));
  }
  append(fwd.kernels, attention_fwd);
  fp8_cast(fwd.kernels, spec, s.tokens * s.q_cols);
  fwd.kernels.push_back(proj);
  tp_reduce(fwd, spec, act, "attention_projection");
  fwd.kernels.push_back(residual);

  // MLP block: norm, (all-gather), [router, dispatch], up, activation, down, [combine], (reduce), bias-dropout-add.
  fwd.kernels.push_back(norm);
  tp_gather(fwd, spec, act, "mlp_up");
  const bool moe = m.experts > 1;
  // Tokens sent to their experts, per rank: with sequence parallelism each TP rank dispatches
  // its 1/t of the tokens.
  const double moe_bytes = kAct * s.expert_tokens * s.h * (s.ew_tokens / s.tokens);
  Kernel router{};
  if (moe) {
    router = bf16(gemm("router", s.tokens, s.h, m.experts));
    fwd.kernels.push_back(router);
    if (spec.parallel.ep > 1) fwd.comms.push_back({CommGroup::kEp, coll::Op::kAllToAll, moe_bytes, false, {}});
  }
  const bool gated = m.mlp == MlpKind::kSwiGlu;
  // The experts a rank holds run as one grouped GEMM: a batch of equal GEMMs, one per local
  // expert, over its share of the routed tokens (the balanced routing the model assumes).
  const double local_experts = moe ? std::max(1.0, static_cast<double>(m.experts) / spec.parallel.ep) : 1.0;
  const double expert_rows = s.expert_tokens / local_experts;
  const Kernel up = batched_gemm("mlp_up", local_experts, expert_rows, s.h, gated ? 2 * s.f : s.f);
  const Kernel activation =
      memory(gated ? "swiglu" : "gelu", (gated ? 3 : 2) * kAct * s.expert_tokens * s.f, hw::MemoryKernel::kActivation);
  const Kernel down = batched_gemm("mlp_down", local_experts, expert_rows, s.f, s.h);
  fp8_cast(fwd.kernels, spec, s.expert_tokens * s.h);
  fwd.kernels.push_back(up);
  fwd.kernels.push_back(activation);
  fp8_cast(fwd.kernels, spec, s.expert_tokens * s.f);
  fwd.kernels.push_back(down);
  if (moe && spec.parallel.ep > 1) fwd.comms.push_back({CommGroup::kEp, coll::Op::kAllToAll, moe_bytes, false, {}});
  tp_reduce(fwd, spec, act, "mlp_down");
  fwd.kernels.push_back(residual);

  // Output elements of the layer's linear GEMMs, for their gradients' FP8 casts.
  const std::map<std::string_view, double> gemm_outputs{{"qkv", s.tokens * (s.q_cols + 2 * s.kv_cols)},
                                                        {"attention_projection", s.tokens * s.h},
                                                        {"mlp_up", s.expert_tokens * (gated ? 2 * s.f : s.f)},
                                                        {"mlp_down", s.expert_tokens * s.h}};
  // Backward: each GEMM twice (input and weight gradients), element-wise kernels read the
  // saved input and the incoming gradient and write one gradient (about twice the bytes), and
  // each collective's mirror image (all-gather <-> reduce-scatter, all-reduce stays).
  for (const Kernel& k : fwd.kernels) {
    if (k.kind == KernelKind::kGemm && k.name != "attention_scores" && k.name != "attention_values") {
      // FP8: the gradient arriving at an FP8 GEMM (its output's shape) is cast too.
      if (!k.keeps_bf16) fp8_cast(bwd.kernels, spec, gemm_outputs.at(k.name));
      gemm_backward(bwd.kernels, k);
      grad_accumulation(bwd.kernels, spec, weight_elements(k));
    } else if (k.kind == KernelKind::kMemory && k.name != "scale_mask_softmax" && k.name != "attention_dropout" &&
               k.name != kFp8Cast && k.name != kQkvBias) {
      // The same class of kernel streaming twice the bytes: timed by its class's measured cost.
      // The rotary embedding's backward rotates the gradients of Q and K as its forward rotated
      // them: the same bytes, nothing saved to read.
      Kernel backward = k;
      backward.bytes = k.memory_kernel == hw::MemoryKernel::kRotary ? k.bytes : 2 * k.bytes;
      bwd.kernels.push_back(backward);
    }
  }
  append(bwd.kernels, attention_bwd);
  // Each bias's gradient: the layer's output gradient summed over the tokens, a reduction that
  // reads it once (QKV; the projection's and fc2's over the tokens their bias-dropout-add saw;
  // fc1's over the tokens of its MLP).
  if (separate_bias) {
    for (double outputs :
         {qkv_outputs, s.ew_tokens * s.h, s.expert_tokens * s.f, (moe ? s.expert_tokens : s.ew_tokens) * s.h}) {
      bwd.kernels.push_back(memory("bias_gradient", kAct * outputs));
    }
  }
  for (const CommCall& c : fwd.comms) {
    CommCall mirror = c;
    if (c.op == coll::Op::kAllGather)
      mirror.op = coll::Op::kReduceScatter;
    else if (c.op == coll::Op::kReduceScatter)
      mirror.op = coll::Op::kAllGather;
    bwd.comms.push_back(mirror);
  }

  // Context parallelism: ring attention passes K and V blocks around the CP ring in cp - 1
  // steps, each hidden behind one block of attention (forward), and K, V and their gradients
  // in backward.
  if (spec.parallel.cp > 1 && spec.parallel.cp_comm == CpComm::kAllGather) {
    // All-gather (Llama 3): every rank gathers the whole sequence's K and V before its
    // attention and, in backward, gathers them again and reduce-scatters their gradients; the
    // compute stream waits for each (NCCL's byte convention: the gathered size).
    const double gathered = 2 * kAct * s.b * s.full_seq * s.kv_cols;
    fwd.comms.push_back({CommGroup::kCp, coll::Op::kAllGather, gathered, false, {}});
    bwd.comms.push_back({CommGroup::kCp, coll::Op::kAllGather, gathered, false, {}});
    bwd.comms.push_back({CommGroup::kCp, coll::Op::kReduceScatter, gathered, false, {}});
  } else if (spec.parallel.cp > 1) {
    const double kv_block = 2 * kAct * s.b * s.seq * s.kv_cols;
    for (int step = 1; step < spec.parallel.cp; ++step) {
      fwd.comms.push_back({CommGroup::kCp, coll::Op::kSendRecv, kv_block, true, {}});
      bwd.comms.push_back({CommGroup::kCp, coll::Op::kSendRecv, 2 * kv_block, true, {}});
    }
  }

  switch (spec.recompute) {
    case Recompute::kNone:
      break;
    case Recompute::kSelective:
      if (!spec.flash_attention) w.recompute.kernels = attention_fwd;
      break;
    case Recompute::kFull:
      w.recompute = fwd;
      break;
  }
  return w;
}

LayerWork embedding_work(const TrainingSpec& spec) {
  const Shape s = shape_of(spec);
  LayerWork w;
  // Vocabulary-parallel lookup: each TP rank gathers the rows it holds, then the partial
  // embeddings are summed across TP (reduce-scatter with sequence parallelism).
  const double act = kAct * s.b * s.seq * s.h;
  w.forward.kernels.push_back(memory("embedding_lookup", 2 * kAct * s.tokens * s.h));
  if (spec.model.position == PositionKind::kLearned) {
    w.forward.kernels.push_back(memory("position_embedding", 3 * kAct * s.tokens * s.h));
  }
  tp_reduce(w.forward, spec, act);
  w.backward.kernels.push_back(memory("embedding_backward", 3 * kAct * s.tokens * s.h));
  grad_accumulation(w.backward.kernels, spec, static_cast<double>(spec.model.vocab) / spec.parallel.tp * s.h);
  tp_gather(w.backward, spec, act);
  return w;
}

LayerWork output_layer_work(const TrainingSpec& spec) {
  const Shape s = shape_of(spec);
  const double vocab = static_cast<double>(spec.model.vocab) / spec.parallel.tp;
  const double act = kAct * s.b * s.seq * s.h;
  LayerWork w;
  w.forward.kernels.push_back(memory("final_norm", 2 * kAct * s.ew_tokens * s.h, hw::MemoryKernel::kNorm));
  tp_gather(w.forward, spec, act);
  const Kernel logits = bf16(gemm("logits", s.tokens, s.h, vocab));
  w.forward.kernels.push_back(logits);
  // Megatron-LM's vocabulary-parallel cross-entropy, pass by pass over the [tokens, vocab / t]
  // logits (bytes per element): the logits cast to FP32 (read 2, write 4), the row maximum
  // (read 4), the maximum subtracted (read 4, write 4), exp in place (4 + 4), the row sum (4),
  // the division by it in place (4 + 4): 38. Three tiny all-reduces of per-token maxima and sums
  // (latency only).
  w.forward.kernels.push_back(
      memory("cross_entropy", ((kAct + kFp32) + kFp32 + 2 * kFp32 + 2 * kFp32 + kFp32 + 2 * kFp32) * s.tokens * vocab));
  if (spec.parallel.tp > 1) {
    for (int i = 0; i < 3; ++i)
      w.forward.comms.push_back({CommGroup::kTp, coll::Op::kAllReduce, 4 * s.tokens, false, {}});
  }
  // Backward: the saved softmax scaled by the incoming gradient in place (read 4, write 4), and
  // the cast back to the logits' precision (read 4, write 2).
  w.backward.kernels.push_back(memory("cross_entropy_backward", (2 * kFp32 + kFp32 + kAct) * s.tokens * vocab));
  gemm_backward(w.backward.kernels, logits);
  // A tied output projection on the embedding's own stage shares its gradient buffer: the
  // embedding's accumulation adds both contributions (autograd sums them first).
  if (!(spec.model.tied_embeddings && spec.parallel.pp == 1)) {
    grad_accumulation(w.backward.kernels, spec, weight_elements(logits));
  }
  tp_reduce(w.backward, spec, act);
  w.backward.kernels.push_back(memory("final_norm_backward", 4 * kAct * s.ew_tokens * s.h, hw::MemoryKernel::kNorm));
  return w;
}

double attention_core_flops_per_token(const TransformerSpec& model, int sequence) {
  return 4.0 * sequence * model.hidden;
}

double layer_forward_flops_per_token(const TransformerSpec& m, int sequence) {
  const double h = m.hidden;
  const double kv_width = static_cast<double>(m.kv_heads) * h / m.heads;
  const double projections = 2 * h * (h + 2 * kv_width) + 2 * h * h;
  const double mlp_one = (m.mlp == MlpKind::kSwiGlu ? 6.0 : 4.0) * h * m.ffn_hidden;
  const double mlp = m.experts > 1 ? m.top_k * mlp_one + 2 * h * m.experts : mlp_one;
  return projections + attention_core_flops_per_token(m, sequence) + mlp;
}

double logits_forward_flops_per_token(const TransformerSpec& m) { return 2.0 * m.hidden * m.vocab; }

StepFlops step_flops(const TrainingSpec& spec) {
  const TransformerSpec& m = spec.model;
  const double tokens = static_cast<double>(spec.global_batch) * spec.sequence;
  const double layer = layer_forward_flops_per_token(m, spec.sequence) * m.layers;
  const double logits = logits_forward_flops_per_token(m);
  StepFlops f;
  // Forward once and backward twice; the output layer counted as Megatron's formula counts it
  // (its V/(16 l h) term is 3/4 of 3 x 2hV: the 96-formula scaled by 3/4).
  f.model = tokens * (3 * layer + 2.25 * logits);
  double recomputed = 0;
  switch (spec.recompute) {
    case Recompute::kNone:
      break;
    case Recompute::kSelective:
      recomputed = spec.flash_attention ? 0 : attention_core_flops_per_token(m, spec.sequence) * m.layers;
      break;
    case Recompute::kFull:
      recomputed = layer;
      break;
  }
  f.hardware = tokens * (3 * layer + recomputed + 3 * logits);
  return f;
}

}  // namespace fathom::train
