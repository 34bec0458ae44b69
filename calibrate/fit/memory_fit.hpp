// The achievable fraction of a memory's peak bandwidth, from STREAM-style kernels (hbm*.csv,
// BabelStream output): per kernel measured / peak, and one fitted fraction, the mean of the four
// streaming kernels Copy, Mul, Add and Triad. Dot is a reduction (it reads two arrays and writes
// nothing back), so its figure is reported on its own and not averaged in; Nstream likewise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/parsers/stream.hpp"

namespace fathom::calib {

struct StreamKernelFraction {
  std::string kernel;
  double bytes_per_s = 0;
  double fraction = 0;       // bytes_per_s / peak
  bool in_fraction = false;  // one of Copy, Mul, Add, Triad
};

struct MemoryFit {
  std::string file;
  std::string memory;  // "hbm", "cpu" or "" as the measurement says
  double peak_bytes_per_s = 0;
  std::vector<StreamKernelFraction> kernels;  // in the file's order
  // The mean fraction of Copy, Mul, Add and Triad; its uncertainty is their sample standard
  // deviation / sqrt(n) (NaN with a single kernel).
  double fraction = 0, fraction_uncertainty = 0;
  std::optional<double> dot_fraction;
  // One parameter, "bandwidth_fraction"; predicted = fraction * peak for each averaged kernel.
  FitResult fit;

  double achievable_bytes_per_s() const { return fraction * peak_bytes_per_s; }
};

// std::invalid_argument naming the file when the peak is not positive or none of Copy, Mul, Add,
// Triad was measured.
MemoryFit fit_memory(const StreamBandwidth& measurement, double peak_bytes_per_s);

}  // namespace fathom::calib
