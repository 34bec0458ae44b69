// The tile model as the step model uses it (models/compute/gemm_tiles.hpp): a shaped GEMM on an
// accelerator with gemm_tiles takes the tile model's time, its traffic at the fitted
// hbm_fraction; at another precision the full-wave rate is scaled to gemm_max; a GEMM without a
// shape, or an accelerator without tiles, keeps the square curve. Hand-made accelerator with
// round numbers, so that each expected value is a hand computation.
#include "models/compute/gemm_tiles.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>

#include "models/compute/roofline.hpp"

using fathom::compute::gemm_model;
using fathom::compute::GemmModel;
using fathom::compute::GemmShape;
using fathom::compute::Kernel;
using fathom::compute::kernel_seconds;
using fathom::compute::KernelKind;
using fathom::hw::AcceleratorSpec;
using fathom::hw::Precision;

namespace {

// 100 SMs, 100 TFLOP/s BF16, 200 FP8, 2 TB/s; tiles fitted in BF16 at 0.8 with the traffic at 0.5,
// no fixed costs.
AcceleratorSpec tiled() {
  AcceleratorSpec a;
  a.name = "tiled-gpu";
  a.peak_flops = {10e12, 50e12, 100e12, 200e12};
  a.hbm_bytes_per_s = 2e12;
  a.compute_units = 100;
  a.efficiency.gemm_max = 0.7;
  a.efficiency.hbm = 0.9;  // streaming kernels; not what a GEMM's traffic reaches
  a.efficiency.gemm_curve = {{1e9, 0.5}, {1e12, 0.5}};
  a.efficiency.gemm_tiles.present = true;
  a.efficiency.gemm_tiles.precision = Precision::kBf16;
  a.efficiency.gemm_tiles.gemm_max = 0.8;
  a.efficiency.gemm_tiles.hbm_fraction = 0.5;
  return a;
}

Kernel shaped(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  const double flops = 2.0 * static_cast<double>(m * n * k * batch);
  return {"gemm", KernelKind::kGemm, flops, 0, false, GemmShape{m, n, k, batch}};
}

}  // namespace

TEST_CASE("a full wave of tiles runs at the tiles' gemm_max; a partial wave costs a whole one") {
  const AcceleratorSpec a = tiled();
  // 1280 x 2560 x 1024: 10 x 10 tiles of 128 x 256 = 100 tiles, one full wave on 100 SMs:
  // 2 * 1280 * 2560 * 1024 / (100e12 * 0.8) = 83.886 us; stream-K runs at the same rate (its
  // efficiency is 1) and 128 x 128 needs 200 tiles, two full waves, the same time.
  const double full = 2.0 * 1280 * 2560 * 1024 / (100e12 * 0.8);
  CHECK(kernel_seconds(a, Precision::kBf16, shaped(1280, 2560, 1024)) == doctest::Approx(full).epsilon(1e-12));
  // One more row of 128: 110 tiles of 128 x 256 need two waves, but stream-K spreads the
  // 11 x 20 = 220 tiles of 128 x 128 without quantisation: 1.1 times the full wave's time.
  CHECK(kernel_seconds(a, Precision::kBf16, shaped(1408, 2560, 1024)) == doctest::Approx(1.1 * full).epsilon(1e-12));
}

TEST_CASE("a narrow GEMM is bound by its traffic at the fitted fraction, far below its FLOPs' rate") {
  const AcceleratorSpec a = tiled();
  // 1,048,576 x 64 x 64: 2 * 2^20 * 64 * 64 = 8.6 GFLOP, but it reads 2^20 x 64 and writes
  // 2^20 x 64 elements of 2 bytes: 268,435,456 + 8,192 bytes at 2e12 * 0.5 = 268.4 us.
  const double bytes = 2.0 * (1048576.0 * 64 + 64.0 * 64 + 1048576.0 * 64);
  const double seconds = kernel_seconds(a, Precision::kBf16, shaped(1048576, 64, 64));
  CHECK(seconds == doctest::Approx(bytes / 1e12).epsilon(1e-12));
  // The square curve would have given the same FLOPs 0.5 of the peak: 172 us, 1.56 times faster.
  Kernel unshaped = shaped(1048576, 64, 64);
  unshaped.shape = {};
  CHECK(kernel_seconds(a, Precision::kBf16, unshaped) == doctest::Approx(unshaped.flops / 50e12).epsilon(1e-12));
  CHECK(seconds > 1.5 * kernel_seconds(a, Precision::kBf16, unshaped));
}

TEST_CASE("a batch of GEMMs quantises its tiles together") {
  const AcceleratorSpec a = tiled();
  // 25 GEMMs of 512 x 1024 x 1024, 4 x 4 tiles of 128 x 256 each: 400 tiles in 4 full waves,
  // so no wave is wasted although no single GEMM fills one.
  const double t = kernel_seconds(a, Precision::kBf16, shaped(512, 1024, 1024, 25));
  CHECK(t == doctest::Approx(25 * 2.0 * 512 * 1024 * 1024 / (100e12 * 0.8)).epsilon(1e-12));
}

TEST_CASE("at another precision the full-wave rate is scaled so that a large square GEMM reaches gemm_max") {
  AcceleratorSpec a = tiled();
  a.efficiency.gemm_tiles.wave_overhead_s = 2e-6;  // fixed costs make the scaling non-linear
  a.efficiency.gemm_tiles.launch_s = 3e-6;
  const GemmModel fp8 = gemm_model(a, Precision::kFp8);
  CHECK(fp8.peak_flops == 200e12);
  CHECK(fp8.input_bytes == 1);
  CHECK(fp8.tflops(16384, 16384, 16384) * 1e12 / 200e12 == doctest::Approx(0.7).epsilon(1e-4));
  // At the tiles' own precision the fitted figure is used as it is.
  const GemmModel bf16 = gemm_model(a, Precision::kBf16);
  CHECK(bf16.gemm_max == 0.8);
  CHECK(bf16.hbm_fraction == 0.5);
  CHECK(bf16.sms == 100);
  // A kernel that stays in BF16 under an FP8 run is timed at BF16.
  Kernel k = shaped(4096, 4096, 4096);
  k.keeps_bf16 = true;
  CHECK(kernel_seconds(a, Precision::kFp8, k) == bf16.seconds(4096, 4096, 4096));
}

TEST_CASE("without gemm_tiles a shaped GEMM keeps the square curve") {
  AcceleratorSpec a = tiled();
  a.efficiency.gemm_tiles = {};
  const Kernel k = shaped(1048576, 64, 64);
  CHECK(kernel_seconds(a, Precision::kBf16, k) == doctest::Approx(k.flops / 50e12).epsilon(1e-12));
  CHECK_THROWS_AS(gemm_model(a, Precision::kBf16), std::invalid_argument);
}
