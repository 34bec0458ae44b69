// The per-kernel compute model fitted to measured kernels of real layer shapes (an operator
// profile: calibrate/parsers/operator_profile.hpp), and its prediction of other profiles.
//
// Every operator of a profile row becomes the compute::Kernel the simulator would time for it
// (profiled_kernels): the four GEMMs with their shapes per tensor-parallel shard, and the four
// memory-bound kernels with the bytes they stream. The fit then finds
//   - the BF16 GEMM tile model (models/compute/gemm_tiles.hpp) from the profile's GEMMs, through
//     the same fit as a GEMM sweep (fit_gemm_dtype), and
//   - for each memory-bound kernel (norm, rotary, activation, residual) its measured cost
//     max(min_s, launch_s + bytes / bytes_per_s) (hw::MemoryKernelCost);
// and predict_profile() times another profile's kernels through compute::kernel_seconds, the
// function the training and serving models call. Fitting one model's profile and predicting
// another's is the held-out test of the kernel model (docs/calibration.md, "Operator profiles").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/gemm_fit.hpp"
#include "calibrate/fit/least_squares.hpp"
#include "calibrate/parsers/operator_profile.hpp"
#include "models/compute/roofline.hpp"
#include "models/hardware/accelerator.hpp"

namespace fathom::calib {

// The memory-bound kernel class an operator belongs to; nullopt for a GEMM.
std::optional<hw::MemoryKernel> memory_kernel_of(ProfiledOp op);

// The kernels of one row (index: ProfiledOp), at BF16 (2-byte activations and weights).
//   GEMMs (m = tokens): QKV n = (h + 2 kv) / t, k = h; output n = h, k = h / t; up n = (2 if
//   gated) f / t, k = h; down n = h, k = f / t. KV columns are kept whole (at least one head) when
//   t exceeds the KV heads, as vLLM replicates them.
//   Bytes: a norm reads and writes [tokens, h]: 4 T h; the rotary embedding rewrites Q and K in
//   place: 4 T (h + kv) / t; the gated activation reads gate and up and writes one: 6 T f / t
//   (4 T f / t ungated); the residual add reads two and writes one: 6 T h.
std::array<compute::Kernel, kProfiledOps> profiled_kernels(const ProfiledModel& model, std::int64_t tokens, int tp);

struct KernelFit {
  std::string file;
  GemmFit gemm;  // the BF16 tile model
  std::array<hw::MemoryKernelCost, hw::kMemoryKernels> memory{};
  std::array<FitResult, hw::kMemoryKernels> memory_fit{};  // parameters launch_s, bytes_per_s, min_s
};

// Fits `profile` (its every row). `facts` name the accelerator's SMs, HBM bandwidth and its "bf16"
// peak. std::invalid_argument as fit_gemm_dtype, or when a class has fewer than 3 points.
KernelFit fit_kernels(const OperatorProfile& profile, const AcceleratorFacts& facts, const FitOptions& options = {});

// `accelerator` with the fit's figures: gemm_tiles_bf16 and memory_kernels.
hw::AcceleratorSpec with_kernel_fit(hw::AcceleratorSpec accelerator, const KernelFit& fit);

// One operator of one row, measured and predicted.
struct OperatorPrediction {
  std::int64_t tokens = 0;
  int tp = 0;
  ProfiledOp op = ProfiledOp::kQkv;
  double measured_s = 0, predicted_s = 0;
  double relative_error() const { return predicted_s / measured_s - 1; }
};
std::vector<OperatorPrediction> predict_profile(const OperatorProfile& profile, const hw::AcceleratorSpec& accelerator);

// The errors the held-out test reads, over the rows of at least `min_tokens` tokens: the median
// relative error of the GEMMs and of the memory-bound kernels, and each row's layer total (the
// sum of its operators) against the measured sum; the largest |error| of those totals.
struct ProfileErrors {
  double gemm_median = 0, memory_median = 0;
  double layer_worst = 0;  // signed, the largest in magnitude
  std::int64_t worst_tokens = 0;
  int worst_tp = 0;
  double layer_median = 0;
  std::size_t rows = 0;
};
ProfileErrors profile_errors(const std::vector<OperatorPrediction>& predictions, std::int64_t min_tokens);

}  // namespace fathom::calib
