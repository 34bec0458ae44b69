// The GEMM time model and its fit: recovery of known parameters from noisy synthetic sweeps, the
// Azure sweeps with the worst error written beside each file, and the errors.
#include "calibrate/fit/gemm_fit.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/parsers/gemm.hpp"
#include "tests/calibrate/calibration_files.hpp"
#include "tests/support/fuzz_rng.hpp"

using fathom::calib::AcceleratorFacts;
using fathom::calib::fit_gemm;
using fathom::calib::GemmFit;
using fathom::calib::GemmKernel;
using fathom::calib::GemmModel;
using fathom::calib::GemmPoint;
using fathom::calib::GemmSweep;
using fathom::calib::parse_gemm_csv;
using fathom::calib::test::data_path;

namespace {

// The accelerators of the calibration data (public specifications): SMs, dense peak, HBM.
const AcceleratorFacts kH100{132, {{"fp8e4m3", 1979e12}, {"fp16", 989e12}, {"bf16", 989e12}}, 3.35e12};
const AcceleratorFacts kH200{132, {{"fp8e4m3", 1979e12}, {"bf16", 989e12}}, 4.8e12};
const AcceleratorFacts kA100{108, {{"fp16", 312e12}, {"bf16", 312e12}}, 2.039e12};

GemmPoint point(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype, double tflops) {
  GemmPoint p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.dtype = dtype;
  p.tflops = tflops;
  return p;
}

std::string describe(const GemmFit& f) {
  std::string s = f.dtype + ": " + f.fit.message + "\n";
  for (std::size_t i = 0; i < f.fit.parameters.size(); ++i) {
    s += "  " + f.fit.parameters[i].name + " = " + std::to_string(f.fit.parameters[i].value) + " +- " +
         std::to_string(f.fit.uncertainty[i]) + "\n";
  }
  for (std::size_t i = 0; i < f.points.size(); ++i) {
    const GemmPoint& p = f.points[i];
    const auto e = f.model.estimate(p.m, p.n, p.k);
    s += "  " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " measured " +
         std::to_string(p.tflops) + " model " + std::to_string(f.fit.predicted[i]) + " error " +
         std::to_string(100 * f.fit.relative_error[i]) + "% " + std::string(gemm_kernel_name(e.kernel)) +
         (e.memory_bound ? " memory-bound" : "") + "\n";
  }
  s += "  median " + std::to_string(100 * f.fit.median_abs_rel_error) + "% max " +
       std::to_string(100 * f.fit.max_abs_rel_error) + "% R^2 " + std::to_string(f.fit.r_squared);
  return s;
}

}  // namespace

TEST_CASE("the model: roofline, wave quantisation, stream-K and launch time in closed form") {
  GemmModel g;
  g.gemm_max = 0.5;
  g.launch_s = 3e-6;
  g.wave_overhead_s = 1e-6;
  g.hbm_fraction = 0.5;
  g.stream_k_efficiency = 0.25;  // below its fitted range, so that the tilings win here
  g.sms = 4;
  g.peak_flops = 1e15;
  g.hbm_bytes_per_s = 1e13;
  g.input_bytes = 1;
  g.output_bytes = 2;
  // 256 x 256 x 4096: 128x128 gives 4 tiles, 1 wave; the 256-wide tilings 2 tiles, also 1 wave
  // but a wave costs sms x 256 x 128 tile work, twice as much.
  const double compute = 4 * 128.0 * 128 * 4096 * 2 / 0.5e15 + 1e-6;
  const double bytes = 1.0 * (256 * 4096 + 4096 * 256) + 2.0 * 256 * 256;
  CHECK(bytes / 0.5e13 < compute);
  const auto e = g.estimate(256, 256, 4096);
  CHECK(e.kernel == GemmKernel::tile_128x128);
  CHECK_FALSE(e.memory_bound);
  CHECK(e.seconds == doctest::Approx(3e-6 + compute));
  CHECK(g.tflops(256, 256, 4096) == doctest::Approx(2.0 * 256 * 256 * 4096 / (3e-6 + compute) / 1e12));
  // 384 x 384: 9 tiles of 128x128 on 4 SMs take 3 waves (12 tiles' time), the 256-wide
  // tilings 6 tiles in 2 waves (16); stream-K at full efficiency does 9 tiles' work.
  g.stream_k_efficiency = 1.0;
  const auto s = g.estimate(384, 384, 4096);
  CHECK(s.kernel == GemmKernel::stream_k);
  CHECK(s.seconds == doctest::Approx(3e-6 + 9 * 128.0 * 128 * 4096 * 2 / 0.5e15 + 2e-6));
  // A skinny GEMM is memory-bound: its time is bytes / (B hbm_fraction).
  const auto m = g.estimate(1 << 20, 64, 64);
  CHECK(m.memory_bound);
  const double mb = 1.0 * ((1 << 20) * 64.0 + 64.0 * 64) + 2.0 * (1 << 20) * 64;
  CHECK(m.seconds == doctest::Approx(3e-6 + mb / 0.5e13));
  // A batch multiplies the work.
  CHECK(g.seconds(1 << 20, 64, 64, 2) == doctest::Approx(3e-6 + 2 * mb / 0.5e13));
  // An unaligned shape (n = 250 is off the 16-element fp8 vector) computes at unaligned_efficiency:
  // its 4 tiles (1 wave) take twice as long at 0.5, and a memory-bound one is unaffected.
  g.unaligned_efficiency = 0.5;
  const auto u = g.estimate(256, 250, 4096);
  CHECK_FALSE(u.aligned);
  CHECK(u.kernel == GemmKernel::tile_128x128);
  CHECK(u.seconds == doctest::Approx(3e-6 + 4 * 128.0 * 128 * 4096 * 2 / 0.25e15 + 1e-6));
  CHECK(g.estimate(256, 256, 4096).aligned);
  CHECK(g.estimate(256, 256, 4096).seconds == doctest::Approx(e.seconds));
  const double ub = 1.0 * ((1 << 20) * 16.0 + 16.0 * 72) + 2.0 * (1 << 20) * 72;
  CHECK(g.estimate(1 << 20, 72, 16).memory_bound);
  CHECK(g.seconds(1 << 20, 72, 16) == doctest::Approx(3e-6 + ub / 0.5e13));
}

TEST_CASE("alignment: the 16-byte vector in elements of each data type") {
  using fathom::calib::gemm_aligned;
  using fathom::calib::gemm_vector_elements;
  CHECK(gemm_vector_elements(2) == 8);      // fp16, bf16
  CHECK(gemm_vector_elements(1) == 16);     // fp8, int8
  CHECK(gemm_vector_elements(0.5) == 32);   // fp4, int4
  CHECK(gemm_vector_elements(0.75) == 64);  // fp6: 64 elements are 48 bytes, three vectors
  CHECK(gemm_vector_elements(4) == 4);
  CHECK(gemm_vector_elements(8) == 2);
  CHECK_THROWS_AS(gemm_vector_elements(0), std::invalid_argument);
  CHECK(gemm_aligned(1024, 1024, 1024, 2));
  CHECK_FALSE(gemm_aligned(1024, 2145, 1024, 2));  // the sweeps' odd shape
  CHECK(gemm_aligned(1024, 2152, 1024, 2));
  CHECK_FALSE(gemm_aligned(1024, 2152, 1024, 1));  // 2152 = 8 x 269: fp16-aligned, not fp8
  CHECK_FALSE(gemm_aligned(1000, 1024, 1024, 1));
  CHECK_FALSE(gemm_aligned(1024, 1024, 1020, 2));
}

TEST_CASE("synthetic recovery: parameters within 3 sigma from a 1%-noise sweep with memory-bound shapes") {
  GemmModel truth;
  truth.gemm_max = 0.68;
  truth.launch_s = 4e-6;
  truth.wave_overhead_s = 1.5e-6;
  truth.hbm_fraction = 0.82;
  truth.stream_k_efficiency = 0.78;
  truth.unaligned_efficiency = 0.7;
  truth.sms = 132;
  truth.peak_flops = 1979e12;
  truth.hbm_bytes_per_s = 3.35e12;
  truth.input_bytes = 1;
  truth.output_bytes = 2;
  const std::int64_t shapes[][3] = {
      {512, 512, 512},       {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},  {8192, 8192, 8192},
      {16384, 16384, 16384}, {1024, 2145, 1024}, {3000, 5000, 2000}, {1536, 1536, 8192},  {4224, 4224, 512},
      {6144, 12288, 12288},  {2176, 2176, 4096}, {640, 7168, 2048},  {12800, 384, 4096},  {802816, 192, 768},
      {262144, 128, 512},    {131072, 256, 256}, {1 << 20, 64, 128}, {524288, 512, 1024}, {100000, 96, 4096},
      {256, 256, 65536},     {4352, 1024, 1024}, {4100, 4100, 4100}, {2000, 3000, 1000},
  };
  fathom::test::FuzzRng rng(20240917);
  GemmSweep sweep;
  sweep.file = "synthetic";
  int memory_bound = 0, stream_k = 0, tiled = 0, unaligned = 0;
  for (const auto& s : shapes) {
    const auto e = truth.estimate(s[0], s[1], s[2]);
    memory_bound += e.memory_bound;
    unaligned += !e.aligned && !e.memory_bound;
    stream_k += e.kernel == GemmKernel::stream_k;
    tiled += e.kernel != GemmKernel::stream_k;
    // Uniform noise of standard deviation 1%: sqrt(3) * 1% * (2u - 1).
    const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
    sweep.points.push_back(
        point(s[0], s[1], s[2], "fp8e4m3", truth.tflops(s[0], s[1], s[2]) * (1 + std::sqrt(3.0) * 0.01 * (2 * u - 1))));
  }
  // The sweep exercises every branch of the model, or some parameter would not be identified.
  CHECK(memory_bound >= 3);
  CHECK(stream_k >= 2);
  CHECK(tiled >= 5);
  CHECK(unaligned >= 3);
  const auto fits = fit_gemm(sweep, kH100);
  REQUIRE(fits.size() == 1);
  const GemmFit& f = fits[0];
  INFO(describe(f));
  CHECK(f.not_identified.empty());
  CHECK(f.fit.converged);
  const double truths[] = {truth.gemm_max,
                           truth.launch_s,
                           truth.wave_overhead_s,
                           truth.hbm_fraction,
                           truth.stream_k_efficiency,
                           truth.unaligned_efficiency};
  REQUIRE(f.fit.parameters.size() == 6);
  CHECK(f.unaligned_points == unaligned);
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(f.fit.parameters[i].name);
    const double sigma = f.fit.uncertainty[i];
    REQUIRE(std::isfinite(sigma));
    CHECK(sigma > 0);
    CHECK(sigma < 0.25 * truths[i]);  // small: a quarter of the value at most
    CHECK(std::abs(f.fit.parameters[i].value - truths[i]) <= 3 * sigma);
  }
  CHECK(f.fit.max_abs_rel_error < 0.04);
  CHECK(f.starts == 72);
  // The fitted model is what predict_tflops uses.
  CHECK(f.predict_tflops(8192, 8192, 8192) == doctest::Approx(f.fit.predicted[4]));
}

TEST_CASE("the Azure GEMM sweeps fit within the worst error written beside each file") {
  struct Row {
    const char* file;
    AcceleratorFacts facts;
    const char* dtype;
    double max_error;     // tolerance on the worst |relative error| of the file's shapes
    double median_error;  // tolerance on the median
  };
  // Measured with this fit (worst / median |relative error|): H100 1.62% / 0.64%, H200 2.39% /
  // 0.22%, H200 2024-09 1.79% / 0.30%, A100 3.89% / 0.22%. Each sweep has one unaligned shape
  // (1024x2145x1024), which alone sets unaligned_efficiency: without that parameter the A100's
  // odd shape pulled stream_k_efficiency to 0.62 and left 2048^3 13.2% low. The target is
  // 8% for every shape; the tolerances are the measured figures rounded up.
  const Row rows[] = {
      {"azure-nd-h100-v5/gemm.csv", kH100, "fp8e4m3", 0.017, 0.007},          // 1.62%, 0.64%
      {"azure-nd-h200-v5/gemm.csv", kH200, "fp8e4m3", 0.025, 0.003},          // 2.39%, 0.22%
      {"azure-nd-h200-v5/gemm_2024-09.csv", kH200, "fp8e4m3", 0.019, 0.004},  // 1.79%, 0.30%
      {"azure-nd-a100-v4/gemm.csv", kA100, "fp16", 0.040, 0.003},             // 3.89%, 0.22%
  };
  for (const Row& row : rows) {
    CAPTURE(row.file);
    const GemmSweep sweep = parse_gemm_csv(data_path(row.file));
    const auto fits = fit_gemm(sweep, row.facts);
    REQUIRE(fits.size() == 1);
    const GemmFit& f = fits[0];
    INFO(describe(f));
    CHECK(f.dtype == row.dtype);
    CHECK(f.points.size() == sweep.points.size());
    CHECK(f.unaligned_points == 1);
    CHECK(f.fit.max_abs_rel_error <= row.max_error);
    CHECK(f.fit.median_abs_rel_error <= row.median_error);
    for (std::size_t i = 0; i < f.points.size(); ++i) {
      CAPTURE(f.points[i].m);
      CAPTURE(f.points[i].n);
      CAPTURE(f.points[i].k);
      CHECK(std::abs(f.fit.relative_error[i]) <= row.max_error);
      CHECK(f.predict_tflops(f.points[i].m, f.points[i].n, f.points[i].k) == doctest::Approx(f.fit.predicted[i]));
    }
    for (const auto& p : f.fit.parameters) {
      CHECK(p.value >= 0);
    }
  }
}

TEST_CASE("errors: too few points, an unknown peak, bad facts") {
  GemmSweep sweep;
  sweep.file = "few.csv";
  for (int i = 1; i <= 4; ++i) sweep.points.push_back(point(1024 * i, 1024, 1024, "fp16", 100.0 * i));
  try {
    (void)fit_gemm(sweep, kA100);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("few.csv") != std::string::npos);
    CHECK(what.find("fp16") != std::string::npos);
    CHECK(what.find("4 points") != std::string::npos);
  }
  sweep.points.push_back(point(8192, 8192, 8192, "fp16", 250));
  sweep.points.push_back(point(8192, 8192, 8192, "fp8e4m3", 900));
  try {
    (void)fit_gemm(sweep, kA100);  // knows no fp8 peak
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("fp8e4m3") != std::string::npos);
    CHECK(std::string(e.what()).find("peak") != std::string::npos);
  }
  AcceleratorFacts zero = kA100;
  zero.peak_by_dtype["fp8e4m3"] = 0;
  CHECK_THROWS_AS(fit_gemm(sweep, zero), std::invalid_argument);
  AcceleratorFacts no_sms = kH100;
  no_sms.sms = 0;
  CHECK_THROWS_AS(fit_gemm(sweep, no_sms), std::invalid_argument);
  // Five aligned shapes fit five parameters; unaligned_efficiency is fixed at 1 and says so. One
  // unaligned shape among five makes it a sixth parameter, which five points cannot determine.
  GemmSweep aligned;
  aligned.file = "aligned.csv";
  for (int i = 1; i <= 5; ++i) aligned.points.push_back(point(1024 * i, 2048, 1024 * i, "fp16", 40.0 * i + 50));
  const auto five = fit_gemm(aligned, kA100);
  REQUIRE(five.size() == 1);
  CHECK(five[0].unaligned_points == 0);
  CHECK(five[0].fit.parameters.back().name == "unaligned_efficiency");
  CHECK(five[0].fit.parameters.back().fixed);
  CHECK(five[0].model.unaligned_efficiency == 1);
  CHECK(five[0].not_identified.back() == "unaligned_efficiency");
  CHECK(five[0].fit.message.find("kept at 1") != std::string::npos);
  aligned.points.back().n = 2050;
  try {
    (void)fit_gemm(aligned, kA100);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("6 parameters") != std::string::npos);
    CHECK(std::string(e.what()).find("unaligned_efficiency") != std::string::npos);
  }
  CHECK_THROWS_AS(fathom::calib::gemm_element_bytes("fp7"), std::invalid_argument);
  CHECK(fathom::calib::gemm_element_bytes("fp4e2m1").input == 0.5);
  CHECK(fathom::calib::gemm_element_bytes("bf16").output == 2);
}
