// The GEMM time model and its fit to a GEMM sweep (gemm*.csv, cublaslt_gemm output).
//
// The model (models/compute/gemm_tiles.hpp): wave-quantised tilings and stream-K, each a roofline
// over the GEMM's own traffic fraction, unaligned shapes at a lower compute rate, plus a launch.
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
#include "models/compute/gemm_tiles.hpp"

namespace fathom::calib {

// Bytes per element of a GEMM's inputs and output at a data type: fp8 and fp6/fp4 inputs with a
// bf16 output (the sweeps' convention), fp16/bf16 2 and 2, fp32/tf32 4 and 4, fp64 8 and 8,
// int8/int4 inputs with an int32 output. std::invalid_argument naming an unknown type.
struct GemmElementBytes {
  double input = 2, output = 2;
};
GemmElementBytes gemm_element_bytes(std::string_view dtype);

// The time model itself lives with the simulator (models/compute/gemm_tiles.hpp).
using compute::gemm_aligned;
using compute::gemm_kernel_name;
using compute::gemm_vector_elements;
using compute::GemmEstimate;
using compute::GemmKernel;
using compute::GemmModel;

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

// Whether the fitted tile model describes its sweep well enough for the simulator to time shaped
// GEMMs with it (a profile's or catalog entry's gemm_tiles): gemm_max identified and every point
// within kTileModelMaxError of its measurement, the bound the calibration report holds every GEMM
// fit to (notebooks/calibration-report.ipynb). Otherwise the square curve times every GEMM
// (GB200's FP8 table misses by 15.2%, MI300X's non-monotone FP8 sweep by 10.4%).
inline constexpr double kTileModelMaxError = 0.08;
bool tile_model_usable(const GemmFit& fit);

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
