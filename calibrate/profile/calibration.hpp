// One calibration: every fit of calibrate/fit/ run on one system's measurements, with the points
// held out of the fits predicted afterwards. `fathom calibrate` prints it, writes it as a profile
// (profile_writer.hpp) and, on request, as a per-point CSV the notebook plots.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/collective_fit.hpp"
#include "calibrate/fit/gemm_fit.hpp"
#include "calibrate/fit/kernel_fit.hpp"
#include "calibrate/fit/memory_fit.hpp"
#include "calibrate/fit/nccl_series.hpp"
#include "calibrate/fit/storage_fit.hpp"
#include "calibrate/fit/transfer_fit.hpp"
#include "calibrate/measurement.hpp"
#include "models/collectives/collective_params.hpp"
#include "models/hardware/accelerator.hpp"

namespace fathom::calib {

// What the fits need to know of the measured system.
struct SystemFacts {
  std::string node;                    // catalog node name, for the profile ("" if none)
  hw::AcceleratorSpec accelerator;     // catalog defaults: peaks, HBM, compute units
  coll::CollectiveParams collectives;  // the defaults the collective fit starts from
  ClusterForNodes cluster_for;         // the system with N nodes
};

struct CalibrationOptions {
  // Keep this fraction of every file's points out of the fits (evenly spread over the file), and
  // report the prediction error on them. 0: none.
  double holdout_fraction = 0;
  SeriesOptions series;  // node counts, GPUs per node, op, algo the nccl-tests files lack
  CollectiveFitOptions collective;
};

// One measured point and fathom's prediction of it, for the report and the CSV.
struct PointReport {
  std::string file;
  std::string kind;   // nccl-tests, gemm, hbm, storage, transfer, attention
  std::string label;  // "1048576" (bytes), "4096x4096x4096 fp8e4m3", "Triad", "read 1M qd255x4"
  double x = 0;       // bytes, FLOPs, or block size: what the notebook plots against
  double measured = 0;
  double predicted = 0;
  std::string unit;  // GB/s, TFLOP/s, TB/s
  bool held_out = false;
  double relative_error() const { return (predicted - measured) / measured; }
};

struct Calibration {
  std::vector<std::string> files_used;      // in the fits (possibly with some points held out)
  std::vector<std::string> files_held_out;  // wholly held out
  std::vector<BusbwSeries> series;          // every nccl-tests measurement, held-out files included
  std::optional<CollectiveFit> collectives;
  std::vector<GemmFit> gemm;
  std::optional<MemoryFit> hbm;
  std::vector<StorageFit> storage;
  std::optional<TransferFit> transfer;
  std::optional<double> attention_fraction;  // FlashAttention-2 TFLOP/s / BF16 peak
  std::string attention_file;
  // An operator profile's kernel fit (at most one profile is fitted), and every other profile
  // predicted with it (held out), its errors over the rows of kKernelMinTokens tokens or more.
  std::optional<KernelFit> kernels;
  struct ProfilePrediction {
    std::string file;
    ProfileErrors errors;
  };
  std::vector<ProfilePrediction> kernel_predictions;
  std::vector<PointReport> points;
  // evaluate() over every held-out point but the kernels' (a profile's thousands of operators
  // would outweigh the rest; kernel_predictions reports them)
  std::optional<FitResult> held_out;
  std::vector<std::string> notes;  // assumptions and what was not fitted, for the report
};

// The token counts the kernel model's held-out errors are summarised over: below them a
// forward pass is bound by launches and latency, which no serving or training step at scale runs.
inline constexpr std::int64_t kKernelMinTokens = 256;

// Runs the fits. `held_out_files` are predicted, never fitted. Throws std::invalid_argument when
// two files measure the same thing (two software versions of one system make two profiles) or
// when nothing can be fitted.
Calibration calibrate(const std::vector<Measurement>& fit_files, const std::vector<Measurement>& held_out_files,
                      const SystemFacts& system, const CalibrationOptions& options);

// Whether point i of n is held out at `fraction`: evenly spread, the same every run.
bool held_out_point(std::size_t i, std::size_t n, double fraction);

// Predicted busbw (GB/s) of `op` on every node count of `nodes` x `gpus_per_node` GPUs, for each
// size: [node count][size], by the closed forms (equal to the simulation of one collective alone).
std::vector<std::vector<double>> predict_scaling(const ClusterForNodes& cluster_for,
                                                 const coll::CollectiveParams& params, const BusbwSeries& pattern,
                                                 const std::vector<int>& nodes, const std::vector<std::int64_t>& sizes);

}  // namespace fathom::calib
