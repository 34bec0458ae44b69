// Deterministic fuzzing of every calibration parser: thousands of mutations of real files and of
// each tool's sample output (bytes replaced, bits flipped, cuts, repeats, deletions, tokens the
// formats give meaning to, lines swapped, repeated or dropped) either parse into a valid result
// or fail with a ParseError naming the file. Never another exception, a crash or a hang. The
// seed and the count are fixed, so a failure reproduces.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/measurement.hpp"
#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"
#include "tests/support/fuzz_rng.hpp"
#include "tests/support/text_mutations.hpp"

namespace calib = fathom::calib;
using fathom::calib::Measurement;
using fathom::calib::ParseError;

namespace {

using Rng = fathom::test::FuzzRng;

// Pieces that the formats give meaning to, or that break numbers.
const std::vector<std::string> kTokens = {"\n",
                                          "\r\n",
                                          "\r",
                                          "\t",
                                          " ",
                                          ",",
                                          "\"",
                                          "#",
                                          "# ",
                                          "#  Rank",
                                          "N/A",
                                          "-1",
                                          "0",
                                          "1e999",
                                          "nan",
                                          "inf",
                                          "-0",
                                          "99999999999999999999",
                                          "1.2.3",
                                          "{",
                                          "}",
                                          "[",
                                          "]",
                                          ":",
                                          " : ",
                                          "\\",
                                          "-x ",
                                          "-b ",
                                          "NCCL_",
                                          "=",
                                          "_perf",
                                          "SUM ",
                                          "Running ",
                                          "Function ",
                                          "Copy ",
                                          "..",
                                          "\xff",
                                          "\xef\xbb\xbf",
                                          std::string(1, '\0'),
                                          "{{{{{{{{",
                                          "[[[[[[[[",
                                          "\"jobs\" : ",
                                          "0x1F",
                                          "1M",
                                          "8G",
                                          "+",
                                          "e",
                                          "."};

int line_count(const std::string& text) { return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0; }

// What a successful parse promises.
void check_valid(const Measurement& m, int lines) {
  const auto in_file = [&](int line) { return line >= 1 && line <= lines; };
  if (const auto* log = std::get_if<calib::NcclTestsLog>(&m)) {
    REQUIRE_FALSE(log->rows.empty());
    CHECK(log->ranks >= 0);
    CHECK(log->nodes >= 0);
    CHECK(log->gpus_per_node >= 0);
    for (const auto& row : log->rows) {
      CHECK(in_file(row.line));
      CHECK(row.bytes >= 0);
      CHECK((row.in_place || row.out_of_place));
      CHECK(finite_nonnegative(calib::busbw(row)));
    }
  } else if (const auto* gemm = std::get_if<calib::GemmSweep>(&m)) {
    REQUIRE_FALSE(gemm->points.empty());
    for (const auto& p : gemm->points) {
      CHECK(in_file(p.line));
      CHECK((p.m >= 1 && p.n >= 1 && p.k >= 1));
      CHECK(finite_nonnegative(p.tflops));
      CHECK_FALSE(p.dtype.empty());
    }
  } else if (const auto* stream = std::get_if<calib::StreamBandwidth>(&m)) {
    REQUIRE_FALSE(stream->kernels.empty());
    for (const auto& k : stream->kernels) {
      CHECK(in_file(k.line));
      CHECK(finite_nonnegative(k.bytes_per_s));
    }
  } else if (const auto* fio = std::get_if<calib::FioRuns>(&m)) {
    REQUIRE_FALSE(fio->results.empty());
    for (const auto& r : fio->results) {
      CHECK(in_file(r.line));
      CHECK(r.block_size_bytes > 0);
      CHECK(finite_nonnegative(r.bandwidth_bytes_per_s));
      CHECK((r.iodepth >= 1 && r.numjobs >= 1));
    }
  } else if (const auto* transfer = std::get_if<calib::TransferBandwidth>(&m)) {
    REQUIRE_FALSE(transfer->tests.empty());
    for (const auto& t : transfer->tests) {
      CHECK(in_file(t.line));
      CHECK(finite_nonnegative(t.bandwidth_bytes_per_s));
    }
  } else if (const auto* attention = std::get_if<calib::AttentionResult>(&m)) {
    REQUIRE_FALSE(attention->points.empty());
    for (const auto& p : attention->points) {
      CHECK(in_file(p.line));
      CHECK(finite_nonnegative(p.tflops));
    }
  } else if (const auto* nccl = std::get_if<calib::CollectiveProfile>(&m)) {
    REQUIRE_FALSE(nccl->logs.empty());
    for (const auto& log : nccl->logs) {
      REQUIRE_FALSE(log.rows.empty());
      CHECK((log.ranks >= 2 && log.nodes >= 1 && log.gpus_per_node >= 1 && log.nodes * log.gpus_per_node == log.ranks));
      for (const auto& row : log.rows) {
        CHECK(in_file(row.line));
        CHECK(row.bytes >= 1);
        REQUIRE(row.out_of_place);
        CHECK((std::isfinite(row.out_of_place->time_us) && row.out_of_place->time_us > 0));
        CHECK(finite_nonnegative(row.out_of_place->busbw_gbps));
      }
    }
  } else if (const auto* profile = std::get_if<calib::OperatorProfile>(&m)) {
    REQUIRE_FALSE(profile->rows.empty());
    for (const auto& row : profile->rows) {
      CHECK(in_file(row.line));
      CHECK((row.tokens >= 1 && row.tp >= 1));
      for (double t : row.median_s) CHECK((std::isfinite(t) && t > 0));
    }
  }
}

// The first `n` lines of `text` (a long profile's head keeps the fuzzing quick).
std::string first_lines(const std::string& text, int n) {
  std::size_t from = 0;
  for (int i = 0; i < n; ++i) {
    const std::size_t newline = text.find('\n', from);
    if (newline == std::string::npos) return text;
    from = newline + 1;
  }
  return text.substr(0, from);
}

struct Input {
  std::string name;  // the file name the parsers see (its extension steers detection)
  std::string text;
  std::function<Measurement(const std::string&, const std::string&)> parse;  // the format's own parser
};

std::vector<Input> inputs() {
  using namespace fathom::calib::test;
  const auto nccl_log = [](const std::string& t, const std::string& f) -> Measurement {
    return calib::parse_nccl_tests_log_text(t, f);
  };
  const auto nccl_csv = [](const std::string& t, const std::string& f) -> Measurement {
    return calib::parse_nccl_tests_csv_text(t, f);
  };
  return {
      {"g.log", data_text("hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.log"), nccl_log},
      {"a.log", data_text("hgx-h100-ib-2node/A_qoofyk_2node_XE9680_8B-16G.log"), nccl_log},
      {"d.log", data_text("hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.log"), nccl_log},
      {"g.csv", data_text("hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.csv"), nccl_csv},
      {"nccl_all_reduce.csv", data_text("azure-nd-h100-v5/nccl_all_reduce.csv"), nccl_csv},
      {"all_reduce.csv", first_lines(data_text("vidur-operator-profiles/network/h100_dgx/all_reduce.csv"), 40),
       [](const std::string& t, const std::string& f) -> Measurement {
         return calib::parse_collective_profile_text(t, f);
       }},
      {"gemm.csv", data_text("azure-nd-gb200-v6/gemm.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_gemm_csv_text(t, f); }},
      {"hbm.csv", data_text("azure-nd-h100-v5/hbm.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_stream_csv_text(t, f); }},
      {"cpu_stream.csv", data_text("azure-nd-gb200-v6/cpu_stream.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_stream_csv_text(t, f); }},
      {"fio.csv", data_text("azure-nd-h100-v5/fio.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_fio_csv_text(t, f); }},
      {"nvbandwidth.csv", data_text("azure-nd-h100-v5/nvbandwidth.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_transfer_csv_text(t, f); }},
      {"transferbench.csv", data_text("azure-nd-mi300x-v5/transferbench.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_transfer_csv_text(t, f); }},
      {"flash_attention.csv", data_text("azure-nd-h100-v5/flash_attention.csv"),
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_attention_csv_text(t, f); }},
      {"fio.json", kFioJson,
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_fio_json_text(t, f); }},
      {"babelstream.txt", kBabelStream,
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_babelstream_text(t, f); }},
      {"babelstream.csv", kBabelStreamCsv,
       [](const std::string& t, const std::string& f) -> Measurement {
         return calib::parse_babelstream_csv_text(t, f);
       }},
      {"nvbandwidth.txt", kNvbandwidth,
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_nvbandwidth_text(t, f); }},
      {"cublaslt.log", kCublasLt,
       [](const std::string& t, const std::string& f) -> Measurement { return calib::parse_cublaslt_gemm_text(t, f); }},
  };
}

// Runs `parse` on `text`; a ParseError must name the file, anything else fails the test.
void run_case(const std::function<Measurement()>& parse, const std::string& name, const std::string& text, int& parsed,
              int& rejected) {
  try {
    const Measurement m = parse();
    check_valid(m, line_count(text));
    ++parsed;
  } catch (const ParseError& e) {
    CHECK(e.file() == name);
    CHECK(std::string(e.what()).rfind(name, 0) == 0);
    CHECK(e.line() >= 0);
    CHECK(e.line() <= line_count(text) + 1);
    ++rejected;
  } catch (const std::exception& e) {
    FAIL("not a ParseError: " << e.what() << "\ninput:\n" << text);
  }
}

}  // namespace

TEST_CASE("fuzz: mutated calibration inputs parse into valid results or fail with ParseError only") {
  Rng rng(20260520);
  constexpr int kCasesPerInput = 400;
  int parsed = 0;
  int rejected = 0;
  for (const Input& input : inputs()) {
    CAPTURE(input.name);
    for (int i = 0; i < kCasesPerInput; ++i) {
      const std::string text = fathom::test::mutate_text(input.text, rng, kTokens);
      run_case([&] { return calib::parse_measurement(text, input.name); }, input.name, text, parsed, rejected);
      run_case([&] { return input.parse(text, input.name); }, input.name, text, parsed, rejected);
    }
  }
  MESSAGE("parsed " << parsed << ", rejected " << rejected);
  // Both outcomes occur: the mutations are neither all harmless nor all fatal.
  CHECK(parsed > 1000);
  CHECK(rejected > 1000);
}

TEST_CASE("fuzz: random bytes and deep nesting") {
  Rng rng(7);
  int parsed = 0;
  int rejected = 0;
  for (int i = 0; i < 500; ++i) {
    std::string text(rng.below(300), '\0');
    for (char& c : text) c = static_cast<char>(rng.below(256));
    for (const std::string name : {"r.log", "r.csv", "r.json", "r.txt"}) {
      run_case([&] { return calib::parse_measurement(text, name); }, name, text, parsed, rejected);
    }
  }
  const std::string deep = "{\n\"jobs\" : " + std::string(100000, '[') + std::string(100000, ']') + "\n}\n";
  run_case([&] { return calib::parse_measurement(deep, "deep.json"); }, "deep.json", deep, parsed, rejected);
  const std::string deep_maps = std::string(50000, '{') + std::string(50000, '}');
  run_case([&] { return calib::parse_measurement(deep_maps, "deep.json"); }, "deep.json", deep_maps, parsed, rejected);
  CHECK(rejected > 0);
}
