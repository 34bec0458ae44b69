// The roofline kernel model: a GEMM's efficiency read from a size curve (through every point,
// linear in log(FLOPs) between points, the first point's time below it, the last fraction
// above it, scaled to gemm_max at other precisions), bounded by the HBM roofline; and the
// two-parameter formula, unchanged, where an accelerator has no curve. Hand-made accelerators
// with round numbers, so that every expected value is a hand computation.
#include "models/compute/roofline.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

using fathom::compute::gemm_efficiency;
using fathom::compute::Kernel;
using fathom::compute::kernel_seconds;
using fathom::compute::KernelKind;
using fathom::hw::AcceleratorSpec;
using fathom::hw::GemmPoint;
using fathom::hw::Precision;

namespace {

constexpr double kBf16Peak = 100e12;
constexpr double kFp8Peak = 200e12;
constexpr double kHbm = 2e12;

// 100 TFLOP/s BF16, 200 FP8, 2 TB/s; no curve.
AcceleratorSpec plain() {
  AcceleratorSpec a;
  a.name = "test-gpu";
  a.peak_flops = {10e12, 50e12, kBf16Peak, kFp8Peak};
  a.hbm_bytes_per_s = kHbm;
  a.efficiency.gemm_max = 0.8;
  a.efficiency.kernel_overhead_s = 5e-6;
  a.efficiency.attention = 0.5;
  a.efficiency.hbm = 0.9;
  return a;
}

// plain() with an FP8 curve that rises, dips and rises again: 1e9 -> 0.2, 1e10 -> 0.5,
// 1e11 -> 0.7 (its largest), 1e12 -> 0.6, 1e13 -> 0.65.
AcceleratorSpec with_curve() {
  AcceleratorSpec a = plain();
  a.efficiency.gemm_curve = {{1e9, 0.2}, {1e10, 0.5}, {1e11, 0.7}, {1e12, 0.6}, {1e13, 0.65}};
  a.efficiency.gemm_curve_precision = Precision::kFp8;
  return a;
}

Kernel gemm(double flops, double bytes = 0) { return {"gemm", KernelKind::kGemm, flops, bytes}; }

}  // namespace

TEST_CASE("without a curve a GEMM keeps the two-parameter formula") {
  const AcceleratorSpec a = plain();
  // 1 GFLOP in BF16: 1e9 / (100e12 * 0.8) = 12.5 us, plus 5 us.
  CHECK(kernel_seconds(a, Precision::kBf16, gemm(1e9)) == doctest::Approx(17.5e-6).epsilon(1e-12));
  CHECK(gemm_efficiency(a, Precision::kBf16, 1e9) == doctest::Approx(1e9 / (17.5e-6 * kBf16Peak)).epsilon(1e-12));
  // FP8: 1e9 / (200e12 * 0.8) = 6.25 us, plus 5 us.
  CHECK(kernel_seconds(a, Precision::kFp8, gemm(1e9)) == doctest::Approx(11.25e-6).epsilon(1e-12));
  CHECK(gemm_efficiency(a, Precision::kFp8, 1e9) == doctest::Approx(1e9 / (11.25e-6 * kFp8Peak)).epsilon(1e-12));
  // Memory-bound GEMM: 90 MB at 1.8 TB/s = 50 us, plus 5 us.
  CHECK(kernel_seconds(a, Precision::kBf16, gemm(1e9, 90e6)) == doctest::Approx(55e-6).epsilon(1e-12));
  // Large GEMMs approach gemm_max.
  CHECK(gemm_efficiency(a, Precision::kBf16, 1e18) == doctest::Approx(0.8).epsilon(1e-6));
}

TEST_CASE("a curve passes through its points and is linear in log(FLOPs) between them") {
  const AcceleratorSpec a = with_curve();
  for (const GemmPoint& p : a.efficiency.gemm_curve) {
    CAPTURE(p.flops);
    CHECK(gemm_efficiency(a, Precision::kFp8, p.flops) == doctest::Approx(p.fraction).epsilon(1e-12));
    // At the curve's precision nothing is added: time = F / (peak * fraction).
    CHECK(kernel_seconds(a, Precision::kFp8, gemm(p.flops)) ==
          doctest::Approx(p.flops / (kFp8Peak * p.fraction)).epsilon(1e-12));
  }
  // sqrt(1e9 * 1e10) is halfway in log: the mean of 0.2 and 0.5; a quarter of the way from
  // 1e11 to 1e12 (10^11.25): 0.7 - 0.25 * 0.1.
  CHECK(gemm_efficiency(a, Precision::kFp8, std::sqrt(1e9 * 1e10)) == doctest::Approx(0.35).epsilon(1e-12));
  CHECK(gemm_efficiency(a, Precision::kFp8, std::pow(10.0, 11.25)) == doctest::Approx(0.675).epsilon(1e-12));
}

TEST_CASE("between two points the curve is monotone and stays between them") {
  const AcceleratorSpec a = with_curve();
  const auto& curve = a.efficiency.gemm_curve;
  for (std::size_t i = 0; i + 1 < curve.size(); ++i) {
    const GemmPoint lo = curve[i];
    const GemmPoint hi = curve[i + 1];
    CAPTURE(lo.flops);
    const double direction = hi.fraction > lo.fraction ? 1 : -1;
    double previous = lo.fraction;
    constexpr int kSteps = 64;
    for (int s = 1; s < kSteps; ++s) {
      const double flops = lo.flops * std::pow(hi.flops / lo.flops, static_cast<double>(s) / kSteps);
      const double f = gemm_efficiency(a, Precision::kFp8, flops);
      CHECK(direction * (f - previous) > 0);  // strictly toward hi
      CHECK(f >= std::min(lo.fraction, hi.fraction));
      CHECK(f <= std::max(lo.fraction, hi.fraction));
      previous = f;
    }
  }
}

TEST_CASE("below the first point a GEMM takes the first point's time; above the last it keeps the last fraction") {
  const AcceleratorSpec a = with_curve();
  const double first_seconds = 1e9 / (kFp8Peak * 0.2);  // 25 us
  for (const double flops : {1e3, 1e6, 2.5e8, 9.99e8}) {
    CAPTURE(flops);
    CHECK(gemm_efficiency(a, Precision::kFp8, flops) == doctest::Approx(0.2 * flops / 1e9).epsilon(1e-12));
    CHECK(kernel_seconds(a, Precision::kFp8, gemm(flops)) == doctest::Approx(first_seconds).epsilon(1e-12));
  }
  for (const double flops : {1e13, 2e13, 1e16}) {
    CAPTURE(flops);
    CHECK(gemm_efficiency(a, Precision::kFp8, flops) == doctest::Approx(0.65).epsilon(1e-12));
  }
}

TEST_CASE("at another precision the curve's shape is scaled to gemm_max") {
  const AcceleratorSpec a = with_curve();
  // The curve's largest fraction is 0.7; gemm_max 0.8: every point times 0.8 / 0.7.
  for (const double flops : {1e8, 1e9, 3e9, 1e11, 5e11, 1e13, 1e15}) {
    CAPTURE(flops);
    const double fp8 = gemm_efficiency(a, Precision::kFp8, flops);
    CHECK(gemm_efficiency(a, Precision::kBf16, flops) == doctest::Approx(fp8 * 0.8 / 0.7).epsilon(1e-12));
    CHECK(gemm_efficiency(a, Precision::kTf32, flops) == doctest::Approx(fp8 * 0.8 / 0.7).epsilon(1e-12));
    CHECK(kernel_seconds(a, Precision::kBf16, gemm(flops)) ==
          doctest::Approx(flops / (kBf16Peak * fp8 * 0.8 / 0.7)).epsilon(1e-12));
  }
  CHECK(gemm_efficiency(a, Precision::kBf16, 1e11) == doctest::Approx(0.8).epsilon(1e-12));

  // A BF16 curve is used as is in BF16, and for a precision the part lacks (it runs in BF16).
  AcceleratorSpec ampere = with_curve();
  ampere.peak_flops[static_cast<std::size_t>(Precision::kFp8)] = 0;
  ampere.efficiency.gemm_curve_precision = Precision::kBf16;
  CHECK(gemm_efficiency(ampere, Precision::kBf16, 1e10) == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(gemm_efficiency(ampere, Precision::kFp8, 1e10) == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(kernel_seconds(ampere, Precision::kFp8, gemm(1e10)) ==
        doctest::Approx(1e10 / (kBf16Peak * 0.5)).epsilon(1e-12));
}

TEST_CASE("with a curve the HBM roofline still bounds a GEMM") {
  const AcceleratorSpec a = with_curve();
  // 1e10 FLOPs at 0.5 of 200 TFLOP/s: 100 us. 360 MB at 1.8 TB/s: 200 us, the bound.
  CHECK(kernel_seconds(a, Precision::kFp8, gemm(1e10, 360e6)) == doctest::Approx(200e-6).epsilon(1e-12));
  // 90 MB (50 us) does not bind: the curve's 100 us.
  CHECK(kernel_seconds(a, Precision::kFp8, gemm(1e10, 90e6)) == doctest::Approx(100e-6).epsilon(1e-12));
}

TEST_CASE("a curve changes GEMMs only: other kernels keep their fraction and fixed cost") {
  const AcceleratorSpec a = with_curve();
  const AcceleratorSpec b = plain();
  const Kernel attention{"attention", KernelKind::kAttention, 1e10, 1e6};
  const Kernel softmax{"softmax", KernelKind::kMemory, 0, 90e6};
  // 1e10 / (100e12 * 0.5) = 200 us, plus 5 us; 90 MB / 1.8 TB/s = 50 us, plus 5 us.
  CHECK(kernel_seconds(a, Precision::kFp8, attention) == doctest::Approx(205e-6).epsilon(1e-12));
  CHECK(kernel_seconds(a, Precision::kFp8, softmax) == doctest::Approx(55e-6).epsilon(1e-12));
  CHECK(kernel_seconds(a, Precision::kFp8, attention) == kernel_seconds(b, Precision::kFp8, attention));
  CHECK(kernel_seconds(a, Precision::kFp8, softmax) == kernel_seconds(b, Precision::kFp8, softmax));
}

TEST_CASE("gemm_efficiency rejects a GEMM without FLOPs or an accelerator without a peak") {
  const AcceleratorSpec a = with_curve();
  CHECK_THROWS_AS(gemm_efficiency(a, Precision::kFp8, 0), std::invalid_argument);
  CHECK_THROWS_AS(gemm_efficiency(a, Precision::kFp8, -1), std::invalid_argument);
  CHECK_THROWS_AS(gemm_efficiency(a, Precision::kFp8, std::nan("")), std::invalid_argument);
  AcceleratorSpec none = plain();
  none.peak_flops = {};
  CHECK_THROWS_AS(gemm_efficiency(none, Precision::kBf16, 1e9), std::invalid_argument);
  CHECK_THROWS_AS(kernel_seconds(none, Precision::kBf16, gemm(1e9)), std::invalid_argument);
}
