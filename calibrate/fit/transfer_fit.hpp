// Host<->device copy bandwidth (nvbandwidth.csv, transferbench.csv, nvbandwidth output) as a
// fraction of the PCIe rate the caller gives (per direction, per device: 64e9 B/s for PCIe 5.0
// x16 before protocol overhead). Trivial, but reported per test like every other fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/parsers/transfer.hpp"

namespace fathom::calib {

enum class TransferDirection { host_to_device, device_to_host, other };

struct TransferTestFraction {
  std::string test;
  TransferDirection direction = TransferDirection::other;
  double bytes_per_s = 0;  // as the file gives it
  // One device's: the mean of nvbandwidth's matrix cells where there is a matrix (its SUM adds
  // the devices up), else the published figure (the calibration CSVs give one GPU's).
  double per_device_bytes_per_s = 0;
  std::optional<double> pcie_fraction;  // host<->device tests only
};

struct TransferFit {
  std::string file;
  double pcie_bytes_per_s = 0;
  std::vector<TransferTestFraction> tests;  // in the file's order
  // The mean fraction of a direction's tests (uncertainty: standard deviation / sqrt(n), NaN for
  // one test), absent when the file has no such test.
  std::optional<double> host_to_device_fraction, device_to_host_fraction;
  // Parameters "host_to_device_fraction", "device_to_host_fraction" (those measured);
  // predicted = fraction * PCIe rate for each host<->device test.
  FitResult fit;
};

// A test is host-to-device when its name, lower-cased with spaces as underscores, contains
// "host_to_device" (and device-to-host likewise), unless it is bidirectional.
TransferDirection transfer_direction(const std::string& test);

// std::invalid_argument naming the file when the PCIe rate is not positive or no test is
// host-to-device or device-to-host.
TransferFit fit_transfer(const TransferBandwidth& measurement, double pcie_bytes_per_s);

}  // namespace fathom::calib
