// The roofline time of one kernel on one accelerator: the larger of its FLOPs at the
// achievable compute rate and its bytes at the achievable HBM bandwidth. A GEMM's achievable
// rate depends on its shape (the tile model fitted to a measured sweep) or, known only by its
// FLOPs, on its size (the sweep's square curve) where the accelerator has one; other
// kernels add a fixed per-kernel cost (launch, ramp-up, tail wave). The efficiencies come from
// the hardware profile (models/hardware/accelerator.hpp): catalog defaults, replaced by
// calibration.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "models/hardware/accelerator.hpp"

namespace fathom::compute {

enum class KernelKind {
  kGemm,       // dense matrix multiply at the training precision
  kAttention,  // fused attention (FlashAttention-style), BF16
  kMemory,     // element-wise or reduction kernel: bound by HBM bandwidth
};

// A GEMM's shape: batch products of (m x k) by (k x n); all 0 when unknown.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool known() const { return m > 0 && n > 0 && k > 0 && batch > 0; }
};

struct Kernel {
  std::string_view name;  // static text: "qkv", "mlp_fc1", "softmax", ...
  KernelKind kind = KernelKind::kMemory;
  double flops = 0;  // FLOPs it executes
  double bytes = 0;  // HBM bytes it reads and writes
  // A GEMM that stays in BF16 in a lower-precision run (Transformer Engine keeps the attention
  // core, the output layer and the router in BF16 under FP8).
  bool keeps_bf16 = false;
  GemmShape shape{};  // GEMMs: their shape, for the tile model (gemm_tiles.hpp)
  // A memory-bound kernel that calibration measures by itself (a norm, the rotary embedding, the
  // activation, the residual add): its own cost where the accelerator has one.
  std::optional<hw::MemoryKernel> memory_kernel{};
};

// The fraction of the dense peak that a GEMM of `flops` (> 0) FLOPs reaches at `precision`,
// fixed costs included; the peak is `precision`'s, or BF16's where `precision`'s is 0 (and the
// GEMM then counts as BF16). With a gemm_curve (points (F_i, f_i)):
// - between two points, f is linear in log(F);
// - below the smallest point the GEMM takes at least that point's time: f = f_0 * F / F_0;
// - above the largest point f stays the largest point's fraction;
// - at a precision other than the curve's, the curve's shape is assumed to carry over, scaled
//   to that precision's level: f * gemm_max / max_i(f_i) (gemm_max is the BF16 large-GEMM
//   fraction, applied to every precision but the curve's own).
// Without a curve: gemm_max * F / (F + gemm_max * peak * kernel_overhead_s).
// Throws std::invalid_argument when flops is not positive or there is no peak.
double gemm_efficiency(const hw::AcceleratorSpec& accelerator, hw::Precision precision, double flops);

// Seconds. A memory-bound kernel the accelerator has a measured cost for (memory_kernel): that
// cost (hw::MemoryKernelCost, its launch included). A GEMM of known shape on an accelerator with
// gemm_tiles or gemm_tiles_bf16: the tile model's time
// (compute::gemm_model; its fixed costs included, its own traffic fraction). A GEMM with a curve: max(flops / (peak *
// gemm_efficiency), bytes / (hbm * hbm_fraction)), nothing added (the curve includes the fixed costs). Any other
// kernel: max(flops / (peak * fraction), bytes / (hbm * hbm_fraction)) + kernel_overhead_s, with fraction gemm_max for
// a GEMM and attention for attention. GEMMs run at `precision`'s peak (falling back to BF16 where it is 0; at BF16 when
// the kernel keeps_bf16), attention at BF16.
double kernel_seconds(const hw::AcceleratorSpec& accelerator, hw::Precision precision, const Kernel& kernel);

}  // namespace fathom::compute
