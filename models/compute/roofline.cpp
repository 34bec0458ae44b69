#include "models/compute/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/compute/gemm_tiles.hpp"

namespace fathom::compute {

namespace {

// The precision whose peak a GEMM at `precision` runs at: its own, or BF16's where it has none.
hw::Precision gemm_precision(const hw::AcceleratorSpec& a, hw::Precision precision) {
  return a.peak(precision) > 0 ? precision : hw::Precision::kBf16;
}

// The curve's fraction at `flops`, at the curve's own precision.
double curve_fraction(const std::vector<hw::GemmPoint>& curve, double flops) {
  const hw::GemmPoint& first = curve.front();
  if (flops <= first.flops) return first.fraction * flops / first.flops;
  const hw::GemmPoint& last = curve.back();
  if (flops >= last.flops) return last.fraction;
  // The first point above flops; the point before it is at or below.
  const auto above =
      std::upper_bound(curve.begin(), curve.end(), flops, [](double f, const hw::GemmPoint& p) { return f < p.flops; });
  const hw::GemmPoint& lo = *(above - 1);
  const hw::GemmPoint& hi = *above;
  const double t = std::log(flops / lo.flops) / std::log(hi.flops / lo.flops);
  return lo.fraction + t * (hi.fraction - lo.fraction);
}

}  // namespace

double gemm_efficiency(const hw::AcceleratorSpec& a, hw::Precision precision, double flops) {
  if (!(flops > 0) || !std::isfinite(flops)) {
    throw std::invalid_argument("gemm_efficiency: a GEMM's FLOPs must be positive and finite, got " +
                                std::to_string(flops));
  }
  const hw::Precision p = gemm_precision(a, precision);
  const double peak = a.peak(p);
  if (!(peak > 0)) throw std::invalid_argument("accelerator " + a.name + ": no peak FLOP/s for GEMMs");
  const hw::DefaultEfficiencies& e = a.efficiency;
  if (e.gemm_curve.empty()) return e.gemm_max * flops / (flops + e.gemm_max * peak * e.kernel_overhead_s);
  const double fraction = curve_fraction(e.gemm_curve, flops);
  if (p == e.gemm_curve_precision) return fraction;
  double best = 0;
  for (const hw::GemmPoint& point : e.gemm_curve) best = std::max(best, point.fraction);
  return fraction * e.gemm_max / best;
}

double kernel_seconds(const hw::AcceleratorSpec& a, hw::Precision run_precision, const Kernel& k) {
  const hw::Precision precision = k.keeps_bf16 ? hw::Precision::kBf16 : run_precision;
  const hw::DefaultEfficiencies& e = a.efficiency;
  if (k.kind == KernelKind::kGemm && k.shape.known() && (e.gemm_tiles.present || e.gemm_tiles_bf16.present)) {
    return gemm_model(a, precision).seconds(k.shape.m, k.shape.n, k.shape.k, k.shape.batch);
  }
  if (k.kind == KernelKind::kMemory && k.memory_kernel) {
    const hw::MemoryKernelCost& cost = e.memory_kernels[static_cast<std::size_t>(*k.memory_kernel)];
    if (cost.present()) return cost.seconds(k.bytes);
  }
  double peak = 0;
  double fraction = 0;
  bool from_curve = false;  // a GEMM whose fraction includes its fixed costs
  switch (k.kind) {
    case KernelKind::kGemm:
      peak = a.peak(gemm_precision(a, precision));
      from_curve = !e.gemm_curve.empty();
      fraction = from_curve && k.flops > 0 && peak > 0 ? gemm_efficiency(a, precision, k.flops) : e.gemm_max;
      break;
    case KernelKind::kAttention:
      peak = a.peak(hw::Precision::kBf16);
      fraction = e.attention;
      break;
    case KernelKind::kMemory:
      break;
  }
  double seconds = 0;
  if (k.flops > 0) {
    if (!(peak > 0 && fraction > 0)) {
      throw std::invalid_argument("accelerator " + a.name + ": no peak FLOP/s for kernel " + std::string(k.name));
    }
    seconds = k.flops / (peak * fraction);
  }
  if (k.bytes > 0) {
    if (!(a.hbm_bytes_per_s > 0 && e.hbm > 0)) {
      throw std::invalid_argument("accelerator " + a.name + ": no HBM bandwidth for kernel " + std::string(k.name));
    }
    seconds = std::max(seconds, k.bytes / (a.hbm_bytes_per_s * e.hbm));
  }
  return from_curve ? seconds : seconds + e.kernel_overhead_s;
}

}  // namespace fathom::compute
