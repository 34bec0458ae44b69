// Copy bandwidth: nvbandwidth.csv and transferbench.csv of the calibration data, and
// nvbandwidth's text output.
#include "calibrate/parsers/transfer.hpp"

#include <doctest/doctest.h>

#include <string>

#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"

using fathom::calib::parse_nvbandwidth_text;
using fathom::calib::parse_transfer_csv;
using fathom::calib::parse_transfer_csv_text;
using fathom::calib::ParseError;
using fathom::calib::TransferBandwidth;
using fathom::calib::TransferBasis;
using fathom::calib::TransferSource;
using fathom::calib::test::data_path;
using fathom::calib::test::kNvbandwidth;
using fathom::calib::test::kNvbandwidthOld;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;

TEST_CASE("every nvbandwidth and TransferBench CSV") {
  struct Expect {
    std::string file;
    std::string tool;
    std::size_t tests;
    double h2d;
  };
  const Expect files[] = {
      {"azure-nd-a100-v4/nvbandwidth.csv", "nvbandwidth", 3, 26.28},
      {"azure-nd-h100-v5/nvbandwidth.csv", "nvbandwidth", 3, 51},
      {"azure-nd-h200-v5/nvbandwidth.csv", "nvbandwidth", 3, 55},
      {"azure-nd-h200-v5/nvbandwidth_2024-09.csv", "nvbandwidth", 3, 52},
      {"azure-nd-gb200-v6/nvbandwidth.csv", "nvbandwidth", 3, 201},
      {"azure-nd-mi300x-v5/transferbench.csv", "transferbench", 2, 55},
  };
  for (const Expect& e : files) {
    CAPTURE(e.file);
    const TransferBandwidth t = parse_transfer_csv(data_path(e.file));
    CHECK(t.source == TransferSource::csv);
    CHECK(t.tool == e.tool);
    REQUIRE(t.tests.size() == e.tests);
    CHECK(t.tests[0].test == "Host to Device");
    CHECK(t.tests[0].basis == TransferBasis::as_published);
    CHECK(t.tests[0].bandwidth_bytes_per_s == doctest::Approx(e.h2d * 1e9));
  }
  const TransferBandwidth gb200 = parse_transfer_csv(data_path("azure-nd-gb200-v6/nvbandwidth.csv"));
  CHECK(gb200.tests[2].test == "Device to Device read");
  CHECK(gb200.tests[2].bandwidth_bytes_per_s == doctest::Approx(1530e9));
  CHECK(gb200.tests[2].line == 4);
}

TEST_CASE("nvbandwidth's text output: SUM lines, matrices, waived and latency tests") {
  const TransferBandwidth t = parse_nvbandwidth_text(kNvbandwidth, "nvb.txt");
  CHECK(t.source == TransferSource::nvbandwidth);
  CHECK(t.tool == "nvbandwidth");
  CHECK(t.version == "v0.7");
  CHECK(t.devices.size() == 2);
  CHECK(t.devices[1] == "NVIDIA H100 80GB HBM3 (00000000:3b:00)");
  CHECK(t.waived == std::vector<std::string>{"device_to_device_memcpy_read_sm"});
  REQUIRE(t.tests.size() == 2);  // the latency test is no bandwidth
  const auto& h2d = t.tests[0];
  CHECK(h2d.test == "host_to_device_memcpy_ce");
  CHECK(h2d.basis == TransferBasis::printed_sum);
  CHECK(h2d.bandwidth_bytes_per_s == doctest::Approx(110.30e9));
  CHECK(h2d.line == 19);
  CHECK(h2d.matrix_title == "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)");
  REQUIRE(h2d.matrix_bytes_per_s.size() == 1);
  CHECK(*h2d.matrix_bytes_per_s[0][1] == doctest::Approx(55.10e9));
  const auto& d2d = t.tests[1];
  CHECK(d2d.test == "device_to_device_memcpy_read_ce");
  REQUIRE(d2d.matrix_bytes_per_s.size() == 2);
  CHECK_FALSE(d2d.matrix_bytes_per_s[0][0].has_value());
  CHECK(*d2d.matrix_bytes_per_s[1][0] == doctest::Approx(391.25e9));
  CHECK(d2d.bandwidth_bytes_per_s == doctest::Approx(781.75e9));

  // `nvbandwidth | grep SUM`
  const TransferBandwidth sums =
      parse_nvbandwidth_text("SUM host_to_device_memcpy_ce 845.90\nSUM device_to_host_memcpy_ce 773.99\n", "s.txt");
  REQUIRE(sums.tests.size() == 2);
  CHECK(sums.tests[1].bandwidth_bytes_per_s == doctest::Approx(773.99e9));
  CHECK(sums.tests[1].matrix_bytes_per_s.empty());

  // Versions without SUM lines: the matrix is summed.
  const TransferBandwidth old = parse_nvbandwidth_text(kNvbandwidthOld, "old.txt");
  REQUIRE(old.tests.size() == 1);
  CHECK(old.tests[0].basis == TransferBasis::matrix_sum);
  CHECK(old.tests[0].bandwidth_bytes_per_s == doctest::Approx((26.05 + 25.88) * 1e9));
  CHECK(old.tests[0].line == 1);
}

TEST_CASE("broken copy-bandwidth inputs") {
  const ParseError row = parse_error(
      [&] { parse_nvbandwidth_text(replace_once(kNvbandwidth, " 1    391.25       N/A", " 1    391.25"), "n.txt"); });
  CHECK(row.line() == 28);
  CHECK(row.field() == "matrix row");
  CHECK(row.expected().find("2 values as the column header at line 26 has") != std::string::npos);
  CHECK(parse_error([&] { parse_nvbandwidth_text(replace_once(kNvbandwidth, "390.50", "39o.50"), "n.txt"); }).field() ==
        "matrix row 0 column 1");
  const ParseError sum =
      parse_error([&] { parse_nvbandwidth_text(replace_once(kNvbandwidth, "110.30", "lots"), "n.txt"); });
  CHECK(sum.line() == 19);
  CHECK(sum.field() == "SUM host_to_device_memcpy_ce");
  CHECK(parse_error([&] { parse_nvbandwidth_text("Running host_to_device_memcpy_ce.\nWaived.\n", "n.txt"); }).field() ==
        "tests");
  CHECK(parse_error([&] { parse_nvbandwidth_text("", "n.txt"); }).found() == "an empty file");
  CHECK(parse_error([&] { parse_transfer_csv_text("test,bandwidth_GBps\nHost to Device,\n", "t.csv"); }).field() ==
        "bandwidth_GBps (column 2)");
  CHECK(parse_error([&] { parse_transfer_csv_text("test,bandwidth\nHost to Device,1\n", "t.csv"); }).field() ==
        "header");
}
