#include "models/compute/gemm_tiles.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace fathom::compute {

namespace {

struct Tiling {
  std::int64_t tm, tn;
  GemmKernel kernel;
};
constexpr std::array<Tiling, 3> kTilings = {Tiling{128, 128, GemmKernel::tile_128x128},
                                            Tiling{128, 256, GemmKernel::tile_128x256},
                                            Tiling{256, 128, GemmKernel::tile_256x128}};
constexpr std::int64_t kStreamKTile = 128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Operand and result bytes per element of a GEMM at a training precision.
void set_element_bytes(GemmModel& g, hw::Precision p) {
  switch (p) {
    case hw::Precision::kFp8:
      g.input_bytes = 1;
      g.output_bytes = 2;
      return;
    case hw::Precision::kBf16:
      g.input_bytes = 2;
      g.output_bytes = 2;
      return;
    case hw::Precision::kTf32:
    case hw::Precision::kFp32:
      g.input_bytes = 4;
      g.output_bytes = 4;
      return;
  }
}

}  // namespace

std::int64_t gemm_vector_elements(double input_bytes) {
  const auto bits = static_cast<std::int64_t>(std::llround(input_bytes * 8));
  if (bits <= 0) throw std::invalid_argument("GEMM model: element size must be positive");
  return 128 / std::gcd(bits, std::int64_t{128});
}

bool gemm_aligned(std::int64_t m, std::int64_t n, std::int64_t k, double input_bytes) {
  const std::int64_t v = gemm_vector_elements(input_bytes);
  return m % v == 0 && n % v == 0 && k % v == 0;
}

std::string_view gemm_kernel_name(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::tile_128x128:
      return "128x128";
    case GemmKernel::tile_128x256:
      return "128x256";
    case GemmKernel::tile_256x128:
      return "256x128";
    case GemmKernel::stream_k:
      return "stream-K";
  }
  return "?";
}

GemmEstimate GemmModel::estimate(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const {
  const double b = static_cast<double>(std::max<std::int64_t>(batch, 1));
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  const double bytes = b * (input_bytes * (md * kd + kd * nd) + output_bytes * md * nd);
  const double memory_s = bytes / (hbm_bytes_per_s * hbm_fraction);
  const bool aligned = gemm_aligned(m, n, k, input_bytes);
  const double flops_per_s = peak_flops * gemm_max * (aligned ? 1.0 : unaligned_efficiency);

  GemmEstimate best;
  best.seconds = std::numeric_limits<double>::infinity();
  const auto consider = [&](double compute_s, GemmKernel kernel) {
    const double t = std::max(compute_s, memory_s);
    if (t < best.seconds) best = {t, kernel, memory_s >= compute_s, aligned};
  };
  for (const Tiling& t : kTilings) {
    const double tiles = b * static_cast<double>(ceil_div(m, t.tm) * ceil_div(n, t.tn));
    const double waves = std::ceil(tiles / sms);
    consider(waves * sms * static_cast<double>(t.tm * t.tn) * kd * 2 / flops_per_s + waves * wave_overhead_s, t.kernel);
  }
  const double tiles = b * static_cast<double>(ceil_div(m, kStreamKTile) * ceil_div(n, kStreamKTile));
  consider(tiles * static_cast<double>(kStreamKTile * kStreamKTile) * kd * 2 / (flops_per_s * stream_k_efficiency) +
               2 * wave_overhead_s,
           GemmKernel::stream_k);
  best.seconds += launch_s;
  return best;
}

double GemmModel::seconds(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const {
  return estimate(m, n, k, batch).seconds;
}

double GemmModel::tflops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const {
  const double b = static_cast<double>(std::max<std::int64_t>(batch, 1));
  return 2 * b * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / seconds(m, n, k, batch) /
         1e12;
}

GemmModel gemm_model(const hw::AcceleratorSpec& a, hw::Precision precision) {
  const hw::Precision p = a.peak(precision) > 0 ? precision : hw::Precision::kBf16;
  const hw::DefaultEfficiencies& e = a.efficiency;
  // BF16 GEMMs take the BF16 fit where there is one; every other precision the sweep's fit (or
  // the BF16 fit, rescaled, when it is the only one).
  const hw::GemmTiles& t = (p == hw::Precision::kBf16 && e.gemm_tiles_bf16.present) || !e.gemm_tiles.present
                               ? e.gemm_tiles_bf16
                               : e.gemm_tiles;
  if (!t.present) throw std::invalid_argument("accelerator " + a.name + ": no GEMM tile model (gemm_tiles)");
  if (a.compute_units <= 0) throw std::invalid_argument("accelerator " + a.name + ": no compute units");
  GemmModel g;
  static_cast<hw::GemmTileCosts&>(g) = t;
  g.sms = a.compute_units;
  g.peak_flops = a.peak(p);
  g.hbm_bytes_per_s = a.hbm_bytes_per_s;
  if (!(g.peak_flops > 0)) throw std::invalid_argument("accelerator " + a.name + ": no peak FLOP/s for GEMMs");
  set_element_bytes(g, p);
  if (p != t.precision) {
    // Scale the full-wave rate until a large square GEMM reaches gemm_max of this peak; the
    // fixed costs make the reached fraction slightly non-linear in gemm_max, so a few
    // fixed-point steps (deterministic, converged to well under 0.1%).
    constexpr std::int64_t kLarge = 16384;
    for (int i = 0; i < 4; ++i) {
      const double reached = g.tflops(kLarge, kLarge, kLarge) * 1e12 / g.peak_flops;
      g.gemm_max *= a.efficiency.gemm_max / reached;
    }
  }
  return g;
}

}  // namespace fathom::compute
