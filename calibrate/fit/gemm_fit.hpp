// The GEMM time model and its fit to a GEMM sweep (gemm*.csv, cublaslt_gemm output).
//
// A GEMM (m, n, k) on an accelerator with `sms` streaming multiprocessors, dense peak P (FLOP/s)
// at the GEMM's data type and HBM bandwidth B moves
//   bytes = input_bytes * (m k + k n) + output_bytes * m n
// and runs one of several kernels; the library's heuristic picks the fastest, so the model takes
// the minimum over the candidates:
//   - wave-quantised tilings (tm, tn) in {(128,128), (128,256), (256,128)}: tiles =
//     ceil(m/tm) ceil(n/tn), waves = ceil(tiles/sms), compute = waves sms tm tn k 2 / (P gemm_max)
//     + waves wave_overhead_s (a partly filled last wave costs a full one);
//   - stream-K: the 128x128 tiles' work spread over the SMs without wave quantisation,
//     compute = ceil(m/128) ceil(n/128) 128 128 k 2 / (P gemm_max stream_k_efficiency)
//     + 2 wave_overhead_s (the split work's fix-up pass);
//   - each candidate takes max(compute, bytes / (B hbm_fraction)) (a roofline);
//   - a shape with m, n or k off the 16-byte vector (8 fp16 or 16 fp8 elements) cannot use
//     16-byte operand loads; its kernels' compute runs at unaligned_efficiency of the aligned rate
//     (NVIDIA's matrix-multiplication performance guide: dimensions should be multiples of 16
//     bytes for Tensor Core efficiency; how much a library loses varies with its version);
//   time = launch_s + min over candidates; TFLOP/s = 2 m n k / time (times the batch).
// Fitted per data type: gemm_max, launch_s, wave_overhead_s, hbm_fraction, stream_k_efficiency,
// and unaligned_efficiency when the sweep has an unaligned shape (else it stays 1, not identified).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/parsers/gemm.hpp"

namespace fathom::calib {

// Bytes per element of a GEMM's inputs and output at a data type: fp8 and fp6/fp4 inputs with a
// bf16 output (the sweeps' convention), fp16/bf16 2 and 2, fp32/tf32 4 and 4, fp64 8 and 8,
// int8/int4 inputs with an int32 output. std::invalid_argument naming an unknown type.
struct GemmElementBytes {
  double input = 2, output = 2;
};
GemmElementBytes gemm_element_bytes(std::string_view dtype);

// Elements of `input_bytes` each in the smallest whole number of 16-byte vectors: 8 fp16, 16 fp8,
// 32 fp4, 64 fp6 (48 bytes).
std::int64_t gemm_vector_elements(double input_bytes);
// Every one of m, n and k is a multiple of gemm_vector_elements(input_bytes).
bool gemm_aligned(std::int64_t m, std::int64_t n, std::int64_t k, double input_bytes);

// The kernel the model picks for a shape.
enum class GemmKernel { tile_128x128, tile_128x256, tile_256x128, stream_k };
std::string_view gemm_kernel_name(GemmKernel kernel);  // "128x128", "128x256", "256x128", "stream-K"

struct GemmEstimate {
  double seconds = 0;
  GemmKernel kernel = GemmKernel::tile_128x128;
  bool memory_bound = false;  // the chosen kernel's time is its HBM traffic's
  bool aligned = true;        // gemm_aligned(): else compute ran at unaligned_efficiency
};

// The model with plain parameters, for the simulator.
struct GemmModel {
  // Fitted.
  double gemm_max = 0.8;            // fraction of the dense peak a full wave of tiles reaches
  double launch_s = 0;              // per GEMM
  double wave_overhead_s = 0;       // per wave (prologue/epilogue of a tile)
  double hbm_fraction = 0.9;        // of the HBM bandwidth a GEMM's traffic reaches
  double stream_k_efficiency = 1;   // stream-K's throughput relative to a full wave's
  double unaligned_efficiency = 1;  // compute rate of an unaligned shape relative to an aligned one
  // The accelerator and data type.
  int sms = 0;
  double peak_flops = 0;  // dense, at the data type
  double hbm_bytes_per_s = 0;
  double input_bytes = 2, output_bytes = 2;

  GemmEstimate estimate(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
  double seconds(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
  // 2 m n k batch / seconds, in TFLOP/s (the sweeps' unit).
  double tflops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
};

// What the caller knows about the accelerator that the sweep does not say.
struct AcceleratorFacts {
  int sms = 0;
  std::map<std::string, double> peak_by_dtype;  // dense FLOP/s, by the sweep's dtype string
  double hbm_bytes_per_s = 0;
};

// The fit of one data type.
struct GemmFit {
  std::string dtype;  // as in the file: fp8e4m3, fp16, ...
  GemmModel model;
  // Parameters in the order gemm_max, launch_s, wave_overhead_s, hbm_fraction,
  // stream_k_efficiency, unaligned_efficiency (fixed at 1 when every shape is aligned); one
  // prediction per point, in the points' order.
  FitResult fit;
  std::vector<GemmPoint> points;
  // Parameters the data cannot identify (NaN uncertainty), e.g. hbm_fraction when no point is
  // memory-bound: their value is the multi-start's first start value, not a measurement; and
  // unaligned_efficiency when no shape is unaligned (kept at 1).
  std::vector<std::string> not_identified;
  int unaligned_points = 0;  // shapes off the 16-byte vector, which alone determine unaligned_efficiency
  int starts = 0;            // multi-start grid size

  double predict_tflops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const {
    return model.tflops(m, n, k, batch);
  }
};

// Fits every data type of `sweep` (in the order they first appear). The min() over kernels makes
// the objective non-convex, so each fit is a deterministic multi-start over a small grid of start
// values keeping the lowest sum of squared relative residuals (the first on a tie).
// std::invalid_argument naming the file and data type when a type's peak is unknown (missing or
// not positive), a type has fewer points than its free parameters (five, six with an unaligned
// shape), or the facts are not positive.
std::vector<GemmFit> fit_gemm(const GemmSweep& sweep, const AcceleratorFacts& facts, const FitOptions& options = {});

// One data type's points (all of `dtype`); `file` names them in errors.
GemmFit fit_gemm_dtype(const std::vector<GemmPoint>& points, const std::string& dtype, const AcceleratorFacts& facts,
                       const FitOptions& options = {}, const std::string& file = {});

}  // namespace fathom::calib
