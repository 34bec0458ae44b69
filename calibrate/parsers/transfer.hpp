// Host<->device and device<->device copy bandwidth: the calibration CSV `test,bandwidth_GBps`
// (nvbandwidth.csv; transferbench.csv for AMD's TransferBench has the same header), and
// nvbandwidth's own text output.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

// How a test's single figure was obtained.
enum class TransferBasis {
  as_published,  // the CSV's number; whether per GPU or summed is whatever its source says
  printed_sum,   // nvbandwidth's "SUM <test> <GB/s>" line
  matrix_sum,    // the sum of the test's matrix, for nvbandwidth versions that print no SUM line
};

struct TransferPoint {
  std::string test;  // CSV: "Host to Device"; nvbandwidth: "host_to_device_memcpy_ce"
  double bandwidth_bytes_per_s = 0;
  TransferBasis basis = TransferBasis::as_published;
  int line = 0;
  // nvbandwidth only: the matrix title and cells (row = first index, N/A = nullopt).
  std::string matrix_title;
  std::vector<std::vector<std::optional<double>>> matrix_bytes_per_s;
};

enum class TransferSource { csv, nvbandwidth };

struct TransferBandwidth {
  std::string file;
  TransferSource source = TransferSource::csv;
  std::string tool;  // "nvbandwidth" or "transferbench" (CSV: from the file name; "" if it names neither)
  std::vector<TransferPoint> tests;
  std::vector<std::string> waived;   // nvbandwidth tests reported as waived
  std::string version;               // nvbandwidth's "nvbandwidth Version: v0.10"
  std::vector<std::string> devices;  // nvbandwidth's "Device 0: NVIDIA H100 80GB HBM3" lines
};

extern const std::string kTransferCsvHeader;  // "test,bandwidth_GBps"

TransferBandwidth parse_transfer_csv(const std::filesystem::path& file);
TransferBandwidth parse_transfer_csv_text(std::string_view text, const std::string& file);

// nvbandwidth's text output:
//   Running host_to_device_memcpy_ce.
//   memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
//              0         1
//    0     55.17     54.02
//   SUM host_to_device_memcpy_ce 109.19
// A bare list of SUM lines (`nvbandwidth | grep SUM`) is read too.
TransferBandwidth parse_nvbandwidth(const std::filesystem::path& file);
TransferBandwidth parse_nvbandwidth_text(std::string_view text, const std::string& file);

}  // namespace fathom::calib
