// The front door: every file of data/calibration-data/ is recognised and read, with the row
// counts each folder's SOURCES.md states; repeats are dropped; unknown files are errors that
// name them.
#include "calibrate/measurement.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"

using fathom::calib::detect_format;
using fathom::calib::file_of;
using fathom::calib::Format;
using fathom::calib::kind_of;
using fathom::calib::load_folder;
using fathom::calib::load_measurement;
using fathom::calib::Measurement;
using fathom::calib::NcclTestsLog;
using fathom::calib::parse_measurement;
using fathom::calib::ParseError;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::parse_error;
using fathom::calib::test::write_scratch;

namespace {

// Rows (points, kernels, results, tests) of a measurement.
std::size_t rows_of(const Measurement& m) {
  struct Rows {
    std::size_t operator()(const fathom::calib::NcclTestsLog& v) const { return v.rows.size(); }
    std::size_t operator()(const fathom::calib::GemmSweep& v) const { return v.points.size(); }
    std::size_t operator()(const fathom::calib::StreamBandwidth& v) const { return v.kernels.size(); }
    std::size_t operator()(const fathom::calib::FioRuns& v) const { return v.results.size(); }
    std::size_t operator()(const fathom::calib::TransferBandwidth& v) const { return v.tests.size(); }
    std::size_t operator()(const fathom::calib::AttentionResult& v) const { return v.points.size(); }
    std::size_t operator()(const fathom::calib::OperatorProfile& v) const { return v.rows.size(); }
    std::size_t operator()(const fathom::calib::CollectiveProfile& v) const {
      std::size_t rows = 0;
      for (const auto& log : v.logs) rows += log.rows.size();
      return rows;
    }
  };
  return std::visit(Rows{}, m);
}

// Every data file of data/calibration-data/: its kind and its rows (the SOURCES.md counts).
const std::map<std::string, std::pair<std::string, std::size_t>>& expected_files() {
  static const std::map<std::string, std::pair<std::string, std::size_t>> files = {
      {"azure-nd-a100-v4/fio.csv", {"fio", 8}},
      {"azure-nd-a100-v4/flash_attention.csv", {"attention", 2}},
      {"azure-nd-a100-v4/gemm.csv", {"gemm", 8}},
      {"azure-nd-a100-v4/hbm.csv", {"stream", 5}},
      {"azure-nd-a100-v4/nccl_all_reduce.csv", {"nccl-tests", 24}},
      {"azure-nd-a100-v4/nvbandwidth.csv", {"transfer", 3}},
      {"azure-nd-gb200-v6/cpu_stream.csv", {"stream", 5}},
      {"azure-nd-gb200-v6/flash_attention.csv", {"attention", 2}},
      {"azure-nd-gb200-v6/gemm.csv", {"gemm", 17}},
      {"azure-nd-gb200-v6/gemm_fp8_fork_3862f8f_2025-06-17.csv", {"gemm", 9}},
      {"azure-nd-gb200-v6/nccl_all_reduce.csv", {"nccl-tests", 24}},
      {"azure-nd-gb200-v6/nvbandwidth.csv", {"transfer", 3}},
      {"azure-nd-h100-v5/fio.csv", {"fio", 8}},
      {"azure-nd-h100-v5/flash_attention.csv", {"attention", 2}},
      {"azure-nd-h100-v5/gemm.csv", {"gemm", 9}},
      {"azure-nd-h100-v5/hbm.csv", {"stream", 5}},
      {"azure-nd-h100-v5/nccl_all_reduce.csv", {"nccl-tests", 24}},
      {"azure-nd-h100-v5/nvbandwidth.csv", {"transfer", 3}},
      {"azure-nd-h200-v5/fio.csv", {"fio", 8}},
      {"azure-nd-h200-v5/fio_2024-09.csv", {"fio", 8}},
      {"azure-nd-h200-v5/flash_attention.csv", {"attention", 2}},
      {"azure-nd-h200-v5/flash_attention_2024-09.csv", {"attention", 2}},
      {"azure-nd-h200-v5/gemm.csv", {"gemm", 8}},
      {"azure-nd-h200-v5/gemm_2024-09.csv", {"gemm", 9}},
      {"azure-nd-h200-v5/hbm.csv", {"stream", 5}},
      {"azure-nd-h200-v5/hbm_2024-09.csv", {"stream", 5}},
      {"azure-nd-h200-v5/nccl_all_reduce.csv", {"nccl-tests", 24}},
      {"azure-nd-h200-v5/nccl_all_reduce_2024-09.csv", {"nccl-tests", 24}},
      {"azure-nd-h200-v5/nvbandwidth.csv", {"transfer", 3}},
      {"azure-nd-h200-v5/nvbandwidth_2024-09.csv", {"transfer", 3}},
      {"azure-nd-mi300x-v5/fio.csv", {"fio", 8}},
      {"azure-nd-mi300x-v5/flash_attention.csv", {"attention", 2}},
      {"azure-nd-mi300x-v5/gemm.csv", {"gemm", 9}},
      {"azure-nd-mi300x-v5/hbm.csv", {"stream", 5}},
      {"azure-nd-mi300x-v5/rccl_all_reduce.csv", {"nccl-tests", 24}},
      {"azure-nd-mi300x-v5/transferbench.csv", {"transfer", 2}},
      {"hgx-h100-ib-2node/A_qoofyk_2node_XE9680_8B-16G.csv", {"nccl-tests", 32}},
      {"hgx-h100-ib-2node/A_qoofyk_2node_XE9680_8B-16G.log", {"nccl-tests", 32}},
      {"hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.csv", {"nccl-tests", 14}},
      {"hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.log", {"nccl-tests", 14}},
      {"hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.csv", {"nccl-tests", 14}},
      {"hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.log", {"nccl-tests", 14}},
      {"hgx-h100-ib-4node/E_gj-aion_4node_default_1M-8G.csv", {"nccl-tests", 14}},
      {"hgx-h100-ib-4node/E_gj-aion_4node_default_1M-8G.log", {"nccl-tests", 14}},
  };
  return files;
}

}  // namespace

TEST_CASE("every file of data/calibration-data parses, with the row counts SOURCES.md states") {
  const auto root = data_path("");
  std::set<std::string> seen;
  for (const auto& folder : std::filesystem::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    const std::vector<Measurement> measurements = load_folder(folder.path());
    std::string previous;
    for (const Measurement& m : measurements) {
      const std::filesystem::path file(file_of(m));
      CHECK(file.filename().string() > previous);  // sorted by file name
      previous = file.filename().string();
      const std::string relative = folder.path().filename().string() + "/" + file.filename().string();
      CAPTURE(relative);
      const auto expected = expected_files().find(relative);
      REQUIRE(expected != expected_files().end());
      CHECK(kind_of(m) == expected->second.first);
      CHECK(rows_of(m) == expected->second.second);
      seen.insert(relative);
    }
  }
  CHECK(seen.size() == expected_files().size());
  // The top folder holds README.md and the folders only.
  CHECK(load_folder(root).empty());
}

TEST_CASE("the hgx folder holds three measurements: each log and its CSV count once") {
  const std::vector<Measurement> all = load_folder(data_path("hgx-h100-ib-2node"));
  REQUIRE(all.size() == 6);
  const std::vector<Measurement> distinct = fathom::calib::drop_repeated(all);
  REQUIRE(distinct.size() == 3);
  for (const Measurement& m : distinct) {
    const auto* log = std::get_if<NcclTestsLog>(&m);
    REQUIRE(log != nullptr);
    CHECK(log->source == fathom::calib::NcclTestsSource::log);  // the log says more than its CSV
    CHECK(log->ranks == 16);
  }
  // Different measurements all stay, in order.
  const std::vector<Measurement> h200 = load_folder(data_path("azure-nd-h200-v5"));
  CHECK(fathom::calib::drop_repeated(h200).size() == h200.size());
}

TEST_CASE("formats are told apart by extension and content") {
  CHECK(detect_format(data_text("hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.log"), "x.log") ==
        Format::nccl_tests_log);
  CHECK(detect_format(data_text("hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.csv"), "x.csv") ==
        Format::nccl_tests_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/nccl_all_reduce.csv"), "x.csv") == Format::nccl_tests_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/gemm.csv"), "x.csv") == Format::gemm_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/hbm.csv"), "x.csv") == Format::stream_csv);
  CHECK(detect_format(data_text("azure-nd-gb200-v6/cpu_stream.csv"), "x.csv") == Format::stream_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/fio.csv"), "x.csv") == Format::fio_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/nvbandwidth.csv"), "x.csv") == Format::transfer_csv);
  CHECK(detect_format(data_text("azure-nd-h100-v5/flash_attention.csv"), "x.csv") == Format::attention_csv);
  using namespace fathom::calib::test;
  CHECK(detect_format(kFioJson, "fio.json") == Format::fio_json);
  CHECK(detect_format(kFioJson, "fio.log") == Format::fio_json);  // a note line, then '{'
  CHECK(detect_format(kBabelStream, "stream.txt") == Format::babelstream);
  CHECK(detect_format(kBabelStreamCsv, "stream.csv") == Format::babelstream_csv);
  CHECK(detect_format(kNvbandwidth, "nvbandwidth.out") == Format::nvbandwidth);
  CHECK(detect_format(kNvbandwidthOld, "nvbandwidth") == Format::nvbandwidth);
  CHECK(detect_format(kCublasLt, "gemm.log") == Format::cublaslt_gemm);
  CHECK(detect_format("4096\t4096\t4096\t0\t118.2\t1162.0\n", "gemm.txt") == Format::cublaslt_gemm);

  // Each reaches its parser.
  CHECK(kind_of(parse_measurement(kFioJson, "fio.json")) == "fio");
  CHECK(kind_of(parse_measurement(kBabelStream, "b.txt")) == "stream");
  CHECK(kind_of(parse_measurement(kNvbandwidth, "n.txt")) == "transfer");
  fathom::calib::LoadOptions options;
  options.gemm_dtype = "fp16";
  const Measurement gemm = parse_measurement("4096\t4096\t4096\t0\t118.2\t1162.0\n", "gemm.txt", options);
  CHECK(std::get<fathom::calib::GemmSweep>(gemm).points.at(0).dtype == "fp16");
  options.nccl.nodes = 2;
  const Measurement g =
      load_measurement(data_path("hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.csv"), options);
  CHECK(std::get<NcclTestsLog>(g).nodes == 2);
}

TEST_CASE("unrecognised files are errors that name them") {
  SUBCASE("an unknown CSV header lists every accepted header") {
    const ParseError e = parse_error([&] { parse_measurement("when,what\n1,2\n", "odd.csv"); });
    CHECK(e.file() == "odd.csv");
    CHECK(e.line() == 1);
    CHECK(e.field() == "header");
    for (const std::string* header :
         {&fathom::calib::kNcclTestsCsvHeader, &fathom::calib::kNcclTestsBusbwCsvHeader, &fathom::calib::kGemmCsvHeader,
          &fathom::calib::kHbmCsvHeader, &fathom::calib::kCpuStreamCsvHeader, &fathom::calib::kBabelStreamCsvHeader,
          &fathom::calib::kFioCsvHeader, &fathom::calib::kTransferCsvHeader, &fathom::calib::kAttentionCsvHeader}) {
      CHECK(e.expected().find(*header) != std::string::npos);
    }
  }
  SUBCASE("text no tool prints, an empty log, another extension") {
    const ParseError text = parse_error([&] { parse_measurement("hello\nworld\n", "notes.txt"); });
    CHECK(text.file() == "notes.txt");
    CHECK(text.line() == 1);
    CHECK(text.field() == "format");
    CHECK(parse_error([&] { parse_measurement("", "empty.log"); }).found() == "an empty file");
    CHECK(parse_error([&] { parse_measurement("", "empty.csv"); }).found() == "an empty file");
    const ParseError png = parse_error([&] { parse_measurement("\x89PNG", "plot.png"); });
    CHECK(png.found() == "a file named \"plot.png\"");
  }
  SUBCASE("load_folder names the file it cannot read") {
    const auto dir = std::filesystem::temp_directory_path() / "fathom-calibrate-folder";
    std::filesystem::remove_all(dir);
    write_scratch("README.md", "# notes\n", "fathom-calibrate-folder");
    write_scratch("SOURCES.md", "# sources\n", "fathom-calibrate-folder");
    write_scratch(".hidden", "x", "fathom-calibrate-folder");
    write_scratch("hbm.csv", data_text("azure-nd-h100-v5/hbm.csv"), "fathom-calibrate-folder");
    CHECK(load_folder(dir).size() == 1);
    write_scratch("plot.png", "\x89PNG", "fathom-calibrate-folder");
    const ParseError e = parse_error([&] { load_folder(dir); });
    CHECK(e.file() == (dir / "plot.png").string());
    CHECK(std::string(e.what()).find("plot.png") != std::string::npos);
    const ParseError missing = parse_error([&] { load_folder(dir / "nothing"); });
    CHECK(missing.found() == "no such folder");
    const ParseError absent = parse_error([&] { load_measurement(dir / "absent.log"); });
    CHECK(absent.found() == "no such file");
    std::filesystem::remove_all(dir);
  }
}
