// GEMM sweeps: the Azure gemm*.csv files and superbench's cublaslt_gemm output.
#include "calibrate/parsers/gemm.hpp"

#include <doctest/doctest.h>

#include <string>

#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"

using fathom::calib::GemmPoint;
using fathom::calib::GemmSource;
using fathom::calib::GemmSweep;
using fathom::calib::parse_cublaslt_gemm_text;
using fathom::calib::parse_gemm_csv;
using fathom::calib::parse_gemm_csv_text;
using fathom::calib::ParseError;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::kCublasLt;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;

namespace {

const GemmPoint* find(const GemmSweep& s, std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype) {
  for (const GemmPoint& p : s.points) {
    if (p.m == m && p.n == n && p.k == k && p.dtype == dtype) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("every gemm CSV of the calibration data, with row counts and spot values") {
  struct Expect {
    std::string file;
    std::size_t rows;
    std::string dtype;
    double tflops_8192;
  };
  const Expect files[] = {
      {"azure-nd-a100-v4/gemm.csv", 8, "fp16", 253.7},
      {"azure-nd-h100-v5/gemm.csv", 9, "fp8e4m3", 1290.1},
      {"azure-nd-h200-v5/gemm.csv", 8, "fp8e4m3", 1269.4},
      {"azure-nd-h200-v5/gemm_2024-09.csv", 9, "fp8e4m3", 1300.6},
      {"azure-nd-mi300x-v5/gemm.csv", 9, "fp8e4m3", 1222.9},
      {"azure-nd-gb200-v6/gemm.csv", 17, "fp8e4m3", 2876.6},
      {"azure-nd-gb200-v6/gemm_fp8_fork_3862f8f_2025-06-17.csv", 9, "fp8e4m3", 2781.5},
  };
  for (const Expect& e : files) {
    CAPTURE(e.file);
    const GemmSweep s = parse_gemm_csv(data_path(e.file));
    CHECK(s.source == GemmSource::csv);
    CHECK(s.points.size() == e.rows);
    const GemmPoint* p = find(s, 8192, 8192, 8192, e.dtype);
    REQUIRE(p != nullptr);
    CHECK(p->tflops == doctest::Approx(e.tflops_8192));
    CHECK(p->batch == 0);
    CHECK_FALSE(p->time_us.has_value());
  }
  const GemmSweep gb200 = parse_gemm_csv(data_path("azure-nd-gb200-v6/gemm.csv"));
  const GemmPoint* fp4 = find(gb200, 8192, 8192, 8192, "fp4e2m1");
  REQUIRE(fp4 != nullptr);
  CHECK(fp4->tflops == doctest::Approx(7535.6));
  CHECK(fp4->line == 14);
  const GemmPoint* skinny = find(gb200, 802816, 192, 768, "fp4e2m1");
  REQUIRE(skinny != nullptr);
  CHECK(skinny->tflops == doctest::Approx(2216.7));
  // The h200 2025 table dropped the 6144x12288x12288 row; the 2024-09 one has it.
  CHECK(find(parse_gemm_csv(data_path("azure-nd-h200-v5/gemm.csv")), 6144, 12288, 12288, "fp8e4m3") == nullptr);
  CHECK(find(parse_gemm_csv(data_path("azure-nd-h200-v5/gemm_2024-09.csv")), 6144, 12288, 12288, "fp8e4m3") != nullptr);
}

TEST_CASE("cublaslt_gemm output: the dtype from each command line's -t") {
  const GemmSweep s = parse_cublaslt_gemm_text(kCublasLt, "runs.txt");
  CHECK(s.source == GemmSource::cublaslt);
  REQUIRE(s.points.size() == 3);
  CHECK(s.points[0].m == 4096);
  CHECK(s.points[0].dtype == "fp8e4m3");
  CHECK(s.points[0].line == 2);
  CHECK(s.points[1].time_us == doctest::Approx(852.48));
  CHECK(s.points[1].tflops == doctest::Approx(1289.792603));
  CHECK(s.points[2].dtype == "bf16");
  CHECK(s.points[2].tflops == doctest::Approx(646.155457));

  // Bare result lines need the dtype from the caller.
  const std::string bare = "8192\t8192\t8192\t0\t852.479980\t1289.792603\n";
  const ParseError none = parse_error([&] { parse_cublaslt_gemm_text(bare, "bare.txt"); });
  CHECK(none.line() == 1);
  CHECK(none.field() == "dtype");
  const GemmSweep supplied = parse_cublaslt_gemm_text(bare, "bare.txt", "fp16");
  CHECK(supplied.points.at(0).dtype == "fp16");
  CHECK(parse_error([&] { parse_cublaslt_gemm_text(bare, "bare.txt", "float16"); }).field() ==
        "dtype (supplied by the caller)");
}

TEST_CASE("broken GEMM inputs") {
  const std::string csv = data_text("azure-nd-h100-v5/gemm.csv");
  const auto parse = [](const std::string& text) { return parse_gemm_csv_text(text, "g.csv"); };
  SUBCASE("an unknown dtype lists the known ones") {
    const ParseError e = parse_error([&] { parse(replace_once(csv, "8192,8192,8192,fp8e4m3", "8192,8192,8192,fp8")); });
    CHECK(e.line() == 5);
    CHECK(e.field() == "dtype (column 4)");
    CHECK(e.expected().find("fp8e4m3") != std::string::npos);
  }
  SUBCASE("a zero dimension, a non-numeric tflops, a short row") {
    CHECK(parse_error([&] { parse(replace_once(csv, "1024,2145,1024", "1024,0,1024")); }).field() == "n (column 2)");
    CHECK(parse_error([&] { parse(replace_once(csv, "1290.1", "1290.1x")); }).field() == "tflops (column 5)");
    CHECK(parse_error([&] { parse(replace_once(csv, "8192,8192,8192,fp8e4m3,1290.1", "8192,8192,8192")); }).field() ==
          "row");
  }
  SUBCASE("the wrong header, an empty file, no rows") {
    const ParseError e = parse_error([&] { parse("M,N,K,dtype,TFLOPS\n1,1,1,fp16,1\n"); });
    CHECK(e.field() == "header");
    CHECK(e.expected().find("m,n,k,dtype,tflops") != std::string::npos);
    CHECK(parse_error([&] { parse(""); }).found() == "an empty file");
    CHECK(parse_error([&] { parse("m,n,k,dtype,tflops\n"); }).field() == "rows");
  }
  SUBCASE("cublaslt_gemm: a short line, a stray line, a bad -t") {
    const ParseError short_line =
        parse_error([&] { parse_cublaslt_gemm_text("4096\t4096\t4096\t0\t118.2\n", "r.txt", "fp16"); });
    CHECK(short_line.line() == 1);
    CHECK(short_line.field() == "line");
    CHECK(parse_error([&] { parse_cublaslt_gemm_text(kCublasLt + "Segmentation fault\n", "r.txt"); }).line() == 7);
    CHECK(parse_error([&] {
            parse_cublaslt_gemm_text(replace_once(kCublasLt, "-t bf16", "-t bf17"), "r.txt");
          }).field() == "-t (command line)");
    CHECK(parse_error([&] { parse_cublaslt_gemm_text("\n\n", "r.txt"); }).found() == "an empty file");
  }
}
