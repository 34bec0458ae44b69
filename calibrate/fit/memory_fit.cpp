#include "calibrate/fit/memory_fit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fathom::calib {

MemoryFit fit_memory(const StreamBandwidth& measurement, double peak_bytes_per_s) {
  if (!(peak_bytes_per_s > 0) || !std::isfinite(peak_bytes_per_s)) {
    throw std::invalid_argument("memory fit of " + measurement.file + ": the peak bandwidth must be positive");
  }
  MemoryFit out;
  out.file = measurement.file;
  out.memory = measurement.memory;
  out.peak_bytes_per_s = peak_bytes_per_s;
  std::vector<double> measured, fractions;
  for (const StreamPoint& p : measurement.kernels) {
    StreamKernelFraction k;
    k.kernel = p.kernel;
    k.bytes_per_s = p.bytes_per_s;
    k.fraction = p.bytes_per_s / peak_bytes_per_s;
    k.in_fraction = p.kernel == "Copy" || p.kernel == "Mul" || p.kernel == "Add" || p.kernel == "Triad";
    if (k.in_fraction) {
      measured.push_back(p.bytes_per_s);
      fractions.push_back(k.fraction);
    }
    if (p.kernel == "Dot" && !out.dot_fraction) out.dot_fraction = k.fraction;
    out.kernels.push_back(k);
  }
  if (fractions.empty()) {
    throw std::invalid_argument("memory fit of " + measurement.file +
                                ": none of the streaming kernels Copy, Mul, Add, Triad was measured");
  }
  const double n = static_cast<double>(fractions.size());
  double mean = 0;
  for (double f : fractions) mean += f / n;
  double var = 0;
  for (double f : fractions) var += (f - mean) * (f - mean);
  out.fraction = mean;
  // The standard error of the mean: the kernels are four looks at one bandwidth.
  out.fraction_uncertainty =
      fractions.size() > 1 ? std::sqrt(var / (n - 1)) / std::sqrt(n) : std::numeric_limits<double>::quiet_NaN();

  out.fit = evaluate(std::vector<double>(measured.size(), mean * peak_bytes_per_s), measured);
  FitParameter p;
  p.name = "bandwidth_fraction";
  p.value = mean;
  p.lower = 0;
  p.upper = std::numeric_limits<double>::infinity();
  out.fit.parameters = {p};
  out.fit.uncertainty = {out.fraction_uncertainty};
  out.fit.message = "mean of " + std::to_string(fractions.size()) + " streaming kernels (Copy, Mul, Add, Triad)";
  return out;
}

}  // namespace fathom::calib
