// `fathom calibrate`: fits the hardware profile to one system's microbenchmarks
// (calibrate/profile/calibration.hpp) and reports measured against fitted per file, the held-out
// error and the predicted busbw of larger clusters. docs/calibration.md describes the command
// and the report.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/nccl_series.hpp"
#include "calibrate/profile/calibration.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "report/calibration/measured_system.hpp"

namespace fathom::report {

struct CalibrationRequest {
  std::vector<std::string> inputs;         // measurement files or folders of them
  std::string scenario;                    // the measured system as a scenario, or
  std::string node;                        // as a catalog node (default: guessed from the inputs' paths)
  std::string system;                      // the profile's name for it (default: the first input folder's)
  std::vector<std::string> exclude;        // globs of files left out
  double holdout = 0;                      // fraction of every file's points kept out of the fit
  std::vector<std::string> holdout_files;  // globs of files kept out of the fit and predicted
  int nodes = 0, gpus_per_node = 0;        // of nccl-tests files that do not say
  std::string op, algo;
  std::vector<int> predict_nodes = {2, 4, 8, 16, 64};
  std::string tuner = "thresholds";                         // --tuner: thresholds or nccl (CollectiveFitOptions::tuner)
  std::optional<std::int64_t> min_bytes;                    // --min-bytes: the collective fit's smallest size
  double max_memory_bytes = scenario::kDefaultMemoryLimit;  // --max-memory
};

// The collective fit's busbw predicted on larger clusters, for the measured series on the most
// nodes: busbw_gbps[node count][size].
struct ScalingTable {
  calib::BusbwSeries pattern;
  std::vector<int> nodes;
  std::vector<std::int64_t> sizes;
  std::vector<std::vector<double>> busbw_gbps;
};

struct CalibrationRun {
  MeasuredSystem system;
  calib::SystemFacts facts;
  calib::Calibration calibration;
  calib::ProfileMeta meta;     // with every input file (SHA-256, kind, rows, how it was used)
  std::int64_t min_bytes = 0;  // nccl-tests points from this size are fitted and summarised
  std::optional<ScalingTable> scaling;
};

// Reads the inputs and fits. std::invalid_argument when the system is unknown or no input is a
// measurement; calib::ParseError for a malformed file.
CalibrationRun run_calibration(const CalibrationRequest& request);

// Everything the fit found, per kind of measurement, and the predicted scaling.
void write_calibration_report(std::FILE* out, const CalibrationRun& run);
// One line per fit: points, r2, median and max relative error; then the held-out error.
void write_calibration_summary(std::FILE* out, const CalibrationRun& run);
// The profile (YAML) a scenario reads with `calibration: FILE`, and every point as CSV.
std::string profile_text(const CalibrationRun& run);
std::string points_text(const CalibrationRun& run);

}  // namespace fathom::report
