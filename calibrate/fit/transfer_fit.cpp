#include "calibrate/fit/transfer_fit.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fathom::calib {

TransferDirection transfer_direction(const std::string& test) {
  std::string t;
  for (const char c : test)
    t += c == ' ' || c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("bidirectional") != std::string::npos) return TransferDirection::other;
  if (t.find("host_to_device") != std::string::npos) return TransferDirection::host_to_device;
  if (t.find("device_to_host") != std::string::npos) return TransferDirection::device_to_host;
  return TransferDirection::other;
}

TransferFit fit_transfer(const TransferBandwidth& measurement, double pcie_bytes_per_s) {
  if (!(pcie_bytes_per_s > 0) || !std::isfinite(pcie_bytes_per_s)) {
    throw std::invalid_argument("transfer fit of " + measurement.file + ": the PCIe rate must be positive");
  }
  TransferFit out;
  out.file = measurement.file;
  out.pcie_bytes_per_s = pcie_bytes_per_s;
  std::vector<double> fractions[2];
  std::vector<double> measured_by_dir[2];
  for (const TransferPoint& p : measurement.tests) {
    TransferTestFraction t;
    t.test = p.test;
    t.direction = transfer_direction(p.test);
    t.bytes_per_s = p.bandwidth_bytes_per_s;
    t.per_device_bytes_per_s = p.bandwidth_bytes_per_s;
    double sum = 0;
    int cells = 0;
    for (const auto& row : p.matrix_bytes_per_s) {
      for (const auto& cell : row) {
        if (cell) {
          sum += *cell;
          ++cells;
        }
      }
    }
    if (cells > 0) t.per_device_bytes_per_s = sum / cells;
    if (t.direction != TransferDirection::other) {
      t.pcie_fraction = t.per_device_bytes_per_s / pcie_bytes_per_s;
      const int d = t.direction == TransferDirection::host_to_device ? 0 : 1;
      fractions[d].push_back(*t.pcie_fraction);
      measured_by_dir[d].push_back(t.per_device_bytes_per_s);
    }
    out.tests.push_back(t);
  }
  if (fractions[0].empty() && fractions[1].empty()) {
    throw std::invalid_argument("transfer fit of " + measurement.file +
                                ": no host-to-device or device-to-host test to compare with the PCIe rate");
  }
  const char* names[2] = {"host_to_device_fraction", "device_to_host_fraction"};
  std::vector<double> predicted, measured;
  std::vector<FitParameter> params;
  std::vector<double> sigmas;
  for (int d = 0; d < 2; ++d) {
    if (fractions[d].empty()) continue;
    const double n = static_cast<double>(fractions[d].size());
    double mean = 0, var = 0;
    for (double f : fractions[d]) mean += f / n;
    for (double f : fractions[d]) var += (f - mean) * (f - mean);
    (d == 0 ? out.host_to_device_fraction : out.device_to_host_fraction) = mean;
    FitParameter p;
    p.name = names[d];
    p.value = mean;
    p.lower = 0;
    params.push_back(p);
    sigmas.push_back(n > 1 ? std::sqrt(var / (n - 1) / n) : std::numeric_limits<double>::quiet_NaN());
    for (double m : measured_by_dir[d]) {
      measured.push_back(m);
      predicted.push_back(mean * pcie_bytes_per_s);
    }
  }
  out.fit = evaluate(predicted, measured);
  out.fit.parameters = params;
  out.fit.uncertainty = sigmas;
  out.fit.message = "host<->device bandwidth as fractions of " + std::to_string(pcie_bytes_per_s / 1e9) + " GB/s";
  return out;
}

}  // namespace fathom::calib
