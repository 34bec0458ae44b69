// The nccl-tests CSV forms: the full rows of hgx-h100-ib-2node/*.csv and the busbw-only tables
// of the Azure results pages; and same_measurement() between a log and the CSV made from it.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "calibrate/parsers/nccl_tests.hpp"
#include "tests/calibrate/calibration_files.hpp"

using fathom::calib::busbw;
using fathom::calib::NcclTestsLog;
using fathom::calib::NcclTestsOptions;
using fathom::calib::NcclTestsSource;
using fathom::calib::parse_nccl_tests_csv;
using fathom::calib::parse_nccl_tests_csv_text;
using fathom::calib::parse_nccl_tests_log;
using fathom::calib::ParseError;
using fathom::calib::same_measurement;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;

namespace {

const std::string kHgx = "hgx-h100-ib-2node/";
const char* const kRuns[] = {"A_qoofyk_2node_XE9680_8B-16G", "D_gj-aion_2node_default_1M-8G",
                             "G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G"};

NcclTestsLog log_of(const std::string& run) { return parse_nccl_tests_log(data_path(kHgx + run + ".log")); }
NcclTestsLog csv_of(const std::string& run) { return parse_nccl_tests_csv(data_path(kHgx + run + ".csv")); }

}  // namespace

TEST_CASE("hgx CSVs: every column of the log rows, ranks and nodes unknown") {
  const NcclTestsLog g = csv_of(kRuns[2]);
  CHECK(g.source == NcclTestsSource::csv);
  CHECK(g.op.empty());
  CHECK(g.ranks == 0);
  CHECK(g.nodes == 0);
  CHECK(g.algo.empty());
  REQUIRE(g.rows.size() == 14);
  const auto& last = g.rows.back();
  CHECK(last.line == 15);
  CHECK(last.bytes == 8LL << 30);
  CHECK(last.count == 2147483648LL);
  CHECK(last.type == "float");
  CHECK(last.redop == "sum");
  CHECK(last.root == -1);
  CHECK(last.out_of_place->time_us == doctest::Approx(41015));
  CHECK(last.out_of_place->busbw_gbps == doctest::Approx(392.69));
  CHECK(last.in_place->busbw_gbps == doctest::Approx(392.30));
  CHECK(last.in_place->wrong == 0);
  CHECK(busbw(last) == doctest::Approx(392.30));
  CHECK(csv_of(kRuns[0]).rows.size() == 32);
  CHECK(csv_of(kRuns[1]).rows.size() == 14);

  const ParseError e = parse_error([&] { fathom::calib::require_nodes(g); });
  CHECK(e.field() == "nodes");
  CHECK(e.file() == g.file);

  NcclTestsOptions options;
  options.op = "all_reduce";
  options.ranks = 16;
  options.nodes = 2;
  options.gpus_per_node = 8;
  const NcclTestsLog supplied = parse_nccl_tests_csv(data_path(kHgx + kRuns[2] + ".csv"), options);
  CHECK(supplied.op == "all_reduce");
  CHECK(fathom::calib::require_ranks(supplied) == 16);
  CHECK(fathom::calib::require_nodes(supplied) == 2);
  CHECK(fathom::calib::require_gpus_per_node(supplied) == 8);
}

TEST_CASE("a log and the CSV made from it are the same measurement; different runs are not") {
  for (const char* run : kRuns) {
    CAPTURE(run);
    CHECK(same_measurement(log_of(run), csv_of(run)));
    CHECK(same_measurement(csv_of(run), log_of(run)));
  }
  for (const char* a : kRuns) {
    for (const char* b : kRuns) {
      if (std::string(a) == b) continue;
      CAPTURE(a);
      CAPTURE(b);
      CHECK_FALSE(same_measurement(log_of(a), log_of(b)));
      CHECK_FALSE(same_measurement(log_of(a), csv_of(b)));
      CHECK_FALSE(same_measurement(csv_of(a), csv_of(b)));
    }
  }
  // D and G cover the same sizes; their busbw differ.
  CHECK(log_of(kRuns[1]).rows.size() == log_of(kRuns[2]).rows.size());
}

TEST_CASE("same measurement means the same busbw to the printed precision") {
  const std::string file = kHgx + kRuns[2] + ".csv";
  const std::string csv = data_text(file);
  const NcclTestsLog log = log_of(kRuns[2]);
  const std::string row = "8589934592,2147483648,float,sum,-1,41015,209.43,392.69,0,41056,209.22,392.30,0";
  CHECK(same_measurement(
      log, parse_nccl_tests_csv_text(replace_once(csv, row, replace_once(row, "392.30", "392.3")), "g.csv")));
  CHECK(same_measurement(
      log, parse_nccl_tests_csv_text(replace_once(csv, row, replace_once(row, "392.30", "392.302")), "g.csv")));
  CHECK_FALSE(same_measurement(
      log, parse_nccl_tests_csv_text(replace_once(csv, row, replace_once(row, "392.30", "392.31")), "g.csv")));
  CHECK_FALSE(same_measurement(
      log, parse_nccl_tests_csv_text(replace_once(csv, row, replace_once(row, "392.69", "392.68")), "g.csv")));
  CHECK_FALSE(same_measurement(
      log, parse_nccl_tests_csv_text(replace_once(csv, row, replace_once(row, "8589934592", "8589934593")), "g.csv")));
  // Ops that differ, where both are known, are different measurements.
  NcclTestsOptions gather;
  gather.op = "all_gather";
  CHECK_FALSE(same_measurement(log, parse_nccl_tests_csv(data_path(file), gather)));
}

TEST_CASE("Azure busbw tables: in-place busbw only, the algorithm as the page states it") {
  struct Expect {
    std::string file;
    std::string algo;
    double first, last;
  };
  const Expect tables[] = {
      {"azure-nd-h100-v5/nccl_all_reduce.csv", "NVLS", 0.07, 478.87},
      {"azure-nd-a100-v4/nccl_all_reduce.csv", "NVLS", 0.04, 231.58},
      {"azure-nd-h200-v5/nccl_all_reduce.csv", "NVLS", 0.06, 480.94},
      {"azure-nd-h200-v5/nccl_all_reduce_2024-09.csv", "NVLS", 0.06, 479.98},
      {"azure-nd-gb200-v6/nccl_all_reduce.csv", "Ring", 0.10, 679.61},
      {"azure-nd-mi300x-v5/rccl_all_reduce.csv", "NVLS", 0.04, 316.82},
  };
  for (const Expect& t : tables) {
    CAPTURE(t.file);
    const NcclTestsLog log = parse_nccl_tests_csv(data_path(t.file));
    CHECK(log.source == NcclTestsSource::busbw_csv);
    CHECK(log.op == "all_reduce");  // the file name names it
    CHECK(log.algo.empty());        // no NCCL_ALGO setting is known, only what the page states
    REQUIRE(log.rows.size() == 24);
    const auto& first = log.rows.front();
    CHECK(first.size_label == "1K");
    CHECK(first.bytes == 1024);
    CHECK(first.line == 2);
    CHECK(busbw(first) == doctest::Approx(t.first));
    const auto& last = log.rows.back();
    CHECK(last.size_label == "8G");
    CHECK(last.bytes == 8589934592LL);
    CHECK(last.algo_stated == t.algo);
    CHECK(last.in_place->busbw_gbps == doctest::Approx(t.last));
    CHECK(std::isnan(last.in_place->time_us));
    CHECK(std::isnan(last.in_place->algbw_gbps));
    CHECK_FALSE(last.out_of_place.has_value());
    CHECK(last.count == 0);
    CHECK(last.type.empty());
  }
  // The published labels are kept beside the derived sizes ("65K" is 65536 bytes).
  const NcclTestsLog h100 = parse_nccl_tests_csv(data_path("azure-nd-h100-v5/nccl_all_reduce.csv"));
  CHECK(h100.rows[6].size_label == "65K");
  CHECK(h100.rows[6].bytes == 65536);
  CHECK(same_measurement(h100, h100));
  CHECK_FALSE(same_measurement(h100, parse_nccl_tests_csv(data_path("azure-nd-h200-v5/nccl_all_reduce.csv"))));
}

TEST_CASE("broken nccl-tests CSVs") {
  const std::string full = data_text(kHgx + kRuns[1] + ".csv");
  const std::string azure = data_text("azure-nd-h100-v5/nccl_all_reduce.csv");
  const auto parse = [](const std::string& text) { return parse_nccl_tests_csv_text(text, "bad.csv"); };
  SUBCASE("an unknown header lists the accepted ones") {
    const ParseError e = parse_error([&] { parse("size,busbw\n1024,0.5\n"); });
    CHECK(e.line() == 1);
    CHECK(e.field() == "header");
    CHECK(e.expected().find(fathom::calib::kNcclTestsCsvHeader) != std::string::npos);
    CHECK(e.expected().find(fathom::calib::kNcclTestsBusbwCsvHeader) != std::string::npos);
    CHECK(e.found() == "\"size,busbw\"");
  }
  SUBCASE("a missing header: the first data row is read as one, and is none") {
    const ParseError e = parse_error([&] { parse(azure.substr(azure.find("1K,"))); });
    CHECK(e.line() == 1);
    CHECK(e.field() == "header");
  }
  SUBCASE("a truncated row") {
    const ParseError e = parse_error([&] {
      parse(replace_once(full, "8589934592,2147483648,float,sum,-1,34508,248.92,466.73,0,34514,248.88,466.65,0",
                         "8589934592,2147483648,float,sum,-1,34508"));
    });
    CHECK(e.line() == 15);
    CHECK(e.field() == "row");
    CHECK(e.found().find("6 cells") == 0);
  }
  SUBCASE("a non-numeric busbw") {
    const ParseError e = parse_error([&] { parse(replace_once(azure, "478.87", "fast")); });
    CHECK(e.line() == 25);
    CHECK(e.field() == "busbw_inplace_GBps (column 4)");
    CHECK(std::string(e.what()) == "bad.csv:25: busbw_inplace_GBps (column 4): expected a number >= 0, found \"fast\"");
    CHECK(parse_error([&] { parse(replace_once(full, "466.65", "466.6.5")); }).field() == "ip_busbw_GBps (column 12)");
  }
  SUBCASE("an empty file and a header without rows") {
    const ParseError empty = parse_error([&] { parse(""); });
    CHECK(empty.line() == 1);
    CHECK(empty.found() == "an empty file");
    const ParseError rows = parse_error([&] { parse(fathom::calib::kNcclTestsBusbwCsvHeader + "\r\n"); });
    CHECK(rows.line() == 2);
    CHECK(rows.field() == "rows");
  }
}
