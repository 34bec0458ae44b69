// STREAM kernels: hbm*.csv and cpu_stream.csv of the calibration data, and BabelStream's own
// output (its printed table and its --csv form).
#include "calibrate/parsers/stream.hpp"

#include <doctest/doctest.h>

#include <string>

#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"

using fathom::calib::parse_babelstream_csv_text;
using fathom::calib::parse_babelstream_text;
using fathom::calib::parse_stream_csv;
using fathom::calib::parse_stream_csv_text;
using fathom::calib::ParseError;
using fathom::calib::StreamBandwidth;
using fathom::calib::StreamSource;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::kBabelStream;
using fathom::calib::test::kBabelStreamCsv;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;

TEST_CASE("every hbm CSV and cpu_stream.csv, in bytes per second") {
  struct Expect {
    std::string file;
    std::string memory;
    double copy, dot;  // as published, in the file's unit
    double unit;
  };
  const Expect files[] = {
      {"azure-nd-a100-v4/hbm.csv", "hbm", 1.61, 1.75, 1e12},
      {"azure-nd-h100-v5/hbm.csv", "hbm", 2.90, 3.18, 1e12},
      {"azure-nd-h200-v5/hbm.csv", "hbm", 4.01, 4.57, 1e12},
      {"azure-nd-h200-v5/hbm_2024-09.csv", "hbm", 4.01, 4.48, 1e12},
      {"azure-nd-mi300x-v5/hbm.csv", "hbm", 4.15, 4.0, 1e12},
      {"azure-nd-gb200-v6/cpu_stream.csv", "cpu", 678, 564, 1e9},
  };
  for (const Expect& e : files) {
    CAPTURE(e.file);
    const StreamBandwidth s = parse_stream_csv(data_path(e.file));
    CHECK(s.source == StreamSource::csv);
    CHECK(s.memory == e.memory);
    REQUIRE(s.kernels.size() == 5);
    CHECK(s.kernels[0].kernel == "Copy");
    CHECK(s.kernels[0].line == 2);
    CHECK(s.kernels[0].bytes_per_s == doctest::Approx(e.copy * e.unit));
    CHECK(s.kernels[4].kernel == "Dot");
    CHECK(s.kernels[4].bytes_per_s == doctest::Approx(e.dot * e.unit));
    CHECK_FALSE(s.kernels[0].avg_s.has_value());
  }
  // A file name that says neither: the caller says which memory it is.
  const std::string hbm = data_text("azure-nd-h100-v5/hbm.csv");
  CHECK(parse_stream_csv_text(hbm, "stream.csv").memory.empty());
  CHECK(parse_stream_csv_text(hbm, "stream.csv", "hbm").memory == "hbm");
  CHECK(parse_error([&] { parse_stream_csv_text(hbm, "stream.csv", "dram"); }).field() ==
        "memory (supplied by the caller)");
}

TEST_CASE("BabelStream's printed table") {
  const StreamBandwidth s = parse_babelstream_text(kBabelStream, "babel.log");
  CHECK(s.source == StreamSource::babelstream);
  CHECK(s.version == "4.0");
  CHECK(s.implementation == "CUDA");
  CHECK(s.precision == "double");
  CHECK(s.device == "NVIDIA H100 80GB HBM3");
  CHECK(s.memory.empty());
  REQUIRE(s.kernels.size() == 5);
  CHECK(s.kernels[0].kernel == "Copy");
  CHECK(s.kernels[0].line == 11);
  CHECK(s.kernels[0].bytes_per_s == doctest::Approx(3001234.5e6));  // MBytes/sec = 10^6 bytes/s
  CHECK(s.kernels[3].kernel == "Triad");
  CHECK(s.kernels[3].min_s == doctest::Approx(0.00026));
  CHECK(s.kernels[3].avg_s == doctest::Approx(0.00026));
  CHECK(parse_babelstream_text(kBabelStream, "hbm-babel.log").memory == "hbm");

  // --mibibytes prints MiBytes/sec.
  const StreamBandwidth mib =
      parse_babelstream_text(replace_once(kBabelStream, "MBytes/sec", "MiBytes/sec"), "babel.log", "cpu");
  CHECK(mib.kernels[0].bytes_per_s == doctest::Approx(3001234.5 * 1048576));
  CHECK(mib.memory == "cpu");

  // Lines after the table (a profiler's, here) end it.
  CHECK(parse_babelstream_text(kBabelStream + "Processing events...\nSaved report\n", "b.log").kernels.size() == 5);
}

TEST_CASE("BabelStream --csv") {
  const StreamBandwidth s = parse_babelstream_csv_text(kBabelStreamCsv, "babel.csv");
  CHECK(s.source == StreamSource::babelstream_csv);
  REQUIRE(s.kernels.size() == 5);
  CHECK(s.kernels[2].kernel == "Add");
  CHECK(s.kernels[2].bytes_per_s == doctest::Approx(3.05e12));
  CHECK(s.kernels[2].max_s == doctest::Approx(0.000270));
  const StreamBandwidth mib =
      parse_babelstream_csv_text(replace_once(kBabelStreamCsv, "max_mbytes_per_sec", "max_mibytes_per_sec"), "b.csv");
  CHECK(mib.kernels[2].bytes_per_s == doctest::Approx(3050000.0 * 1048576));
}

TEST_CASE("broken STREAM inputs") {
  const std::string hbm = data_text("azure-nd-h100-v5/hbm.csv");
  const ParseError kernel = parse_error([&] { parse_stream_csv_text(replace_once(hbm, "Triad", "Traid"), "hbm.csv"); });
  CHECK(kernel.line() == 5);
  CHECK(kernel.field() == "kernel (column 1)");
  CHECK(kernel.expected() == "one of Copy, Mul, Add, Triad, Dot, Nstream");
  CHECK(parse_error([&] { parse_stream_csv_text(replace_once(hbm, "2.97", ""), "hbm.csv"); }).field() ==
        "bandwidth_TBps (column 2)");
  CHECK(parse_error([&] { parse_stream_csv_text("kernel,bandwidth_MBps\nCopy,1\n", "x.csv"); }).field() == "header");

  const ParseError row =
      parse_error([&] { parse_babelstream_text(replace_once(kBabelStream, "3050000.000", "3O50000.000"), "b.log"); });
  CHECK(row.line() == 13);
  CHECK(row.field() == "rate (column 2)");
  CHECK(parse_error([&] {
          parse_babelstream_text(replace_once(kBabelStream, "0.00017     0.00018     0.00017", "0.00017"), "b.log");
        }).field() == "row");
  CHECK(parse_error([&] {
          parse_babelstream_text(replace_once(kBabelStream, "MBytes/sec", "MB/s"), "b.log");
        }).line() == 10);
  const ParseError no_table =
      parse_error([&] { parse_babelstream_text(kBabelStream.substr(0, kBabelStream.find("Function")), "b.log"); });
  CHECK(no_table.field() == "rows");
  CHECK(no_table.line() == 9);
  CHECK(parse_error([&] {
          parse_babelstream_csv_text(replace_once(kBabelStreamCsv, ",100,", ",many,"), "b.csv");
        }).field() == "num_times (column 2)");
}
