// fio: the calibration CSVs and fio's JSON output.
#include "calibrate/parsers/fio.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "tests/calibrate/calibration_files.hpp"
#include "tests/calibrate/samples.hpp"

using fathom::calib::FioResult;
using fathom::calib::FioRuns;
using fathom::calib::FioSource;
using fathom::calib::parse_fio_csv;
using fathom::calib::parse_fio_csv_text;
using fathom::calib::parse_fio_json;
using fathom::calib::parse_fio_json_text;
using fathom::calib::ParseError;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::kFioJson;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;
using fathom::calib::test::write_scratch;

TEST_CASE("every fio CSV: 8 runs each, sizes as fio reads them (powers of 1024)") {
  for (const std::string file : {"azure-nd-a100-v4/fio.csv", "azure-nd-h100-v5/fio.csv", "azure-nd-h200-v5/fio.csv",
                                 "azure-nd-h200-v5/fio_2024-09.csv", "azure-nd-mi300x-v5/fio.csv"}) {
    CAPTURE(file);
    const FioRuns runs = parse_fio_csv(data_path(file));
    CHECK(runs.source == FioSource::csv);
    REQUIRE(runs.results.size() == 8);
    for (const FioResult& r : runs.results) {
      CHECK(r.iodepth == 255);
      CHECK(r.numjobs == 4);
      CHECK(r.ioengine == "libaio");
      CHECK(r.direct == true);
      CHECK_FALSE(r.iops.has_value());
      CHECK(r.bandwidth_bytes_per_s > 0);
    }
  }
  const FioRuns h100 = parse_fio_csv(data_path("azure-nd-h100-v5/fio.csv"));
  const FioResult& first = h100.results[0];
  CHECK(first.test == "Sequential read");
  CHECK(first.rw == "read");
  CHECK(first.direction == "read");
  CHECK(first.block_size_bytes == 1048576);
  CHECK(first.bandwidth_bytes_per_s == doctest::Approx(55.3e9));
  CHECK(first.line == 2);
  CHECK(h100.results[1].block_size_bytes == 524288);
  CHECK(h100.results[2].rw == "randread");
  CHECK(h100.results[2].block_size_bytes == 1024);
  CHECK(h100.results[2].bandwidth_bytes_per_s == doctest::Approx(1.27e9));
  CHECK(h100.results[6].rw == "randwrite");
  CHECK(h100.results[6].direction == "write");
  CHECK(parse_fio_csv(data_path("azure-nd-a100-v4/fio.csv")).results[6].bandwidth_bytes_per_s ==
        doctest::Approx(0.35e9));
}

TEST_CASE("fio JSON: options from the job, then the global options; one result per direction that moved bytes") {
  const FioRuns runs = parse_fio_json_text(kFioJson, "fio.json");
  CHECK(runs.source == FioSource::json);
  CHECK(runs.fio_version == "fio-3.33");
  REQUIRE(runs.results.size() == 3);
  const FioResult& seq = runs.results[0];
  CHECK(seq.test == "seqread");
  CHECK(seq.rw == "read");
  CHECK(seq.direction == "read");
  CHECK(seq.block_size_bytes == 1048576);
  CHECK(seq.iodepth == 255);  // the job's, over the global 64
  CHECK(seq.numjobs == 4);
  CHECK(seq.ioengine == "libaio");
  CHECK(seq.direct == true);
  CHECK(seq.bandwidth_bytes_per_s == doctest::Approx(9.3e9));
  CHECK(seq.iops == doctest::Approx(8869.2));
  CHECK(seq.clat_mean_ns == doctest::Approx(115000.5));
  CHECK(seq.lat_mean_ns == doctest::Approx(116000.25));
  CHECK(seq.clat_percentiles_ns.size() == 3);
  CHECK(seq.clat_percentiles_ns.at(99.9) == doctest::Approx(399360));
  CHECK(seq.line == 21);  // the "read" object, counted in the file (after fio's note line)

  const FioResult& read = runs.results[1];
  const FioResult& write = runs.results[2];
  CHECK(read.test == "mixed");
  CHECK(read.rw == "randrw");
  CHECK(read.direction == "read");
  CHECK(write.direction == "write");
  CHECK(read.block_size_bytes == 4096);
  CHECK(read.iodepth == 64);  // the global option
  CHECK(read.numjobs == 1);   // fio's default
  CHECK(write.bandwidth_bytes_per_s == doctest::Approx(1024000));
  CHECK(write.iops == doctest::Approx(250));
  CHECK(write.clat_percentiles_ns.empty());

  CHECK(parse_fio_json(write_scratch("fio.json", kFioJson)).results.size() == 3);
}

TEST_CASE("fio JSON variants: older fio's bw in KiB/s and latencies in us, and bs per direction") {
  const std::string old = R"({
  "fio version" : "fio-2.2.10",
  "jobs" : [
    {
      "jobname" : "w",
      "error" : 0,
      "job options" : { "rw" : "write", "bs" : "4k,64k" },
      "write" : { "io_bytes" : 100, "bw" : 2048, "iops" : 32.0, "clat" : { "mean" : 15.5 }, "lat" : { "mean" : 16.0 } }
    }
  ]
}
)";
  const FioRuns runs = parse_fio_json_text(old, "old.json");
  REQUIRE(runs.results.size() == 1);
  const FioResult& w = runs.results[0];
  CHECK(w.bandwidth_bytes_per_s == doctest::Approx(2048 * 1024));
  CHECK(w.block_size_bytes == 65536);  // the write size of "4k,64k"
  CHECK(w.clat_mean_ns == doctest::Approx(15500));
  CHECK(w.lat_mean_ns == doctest::Approx(16000));
  CHECK(w.line == 8);
}

TEST_CASE("broken fio inputs") {
  SUBCASE("bad JSON names the line") {
    const std::string missing_comma = replace_once(kFioJson, "\"bs\" : \"1M\",", "\"bs\" : \"1M\"");
    const ParseError e = parse_error([&] { parse_fio_json_text(missing_comma, "bad.json"); });
    CHECK(e.file() == "bad.json");
    CHECK(e.field() == "JSON");
    CHECK(e.line() >= 17);
    CHECK(e.line() <= 19);
    const ParseError open = parse_error([&] { parse_fio_json_text("{\n  \"jobs\" : [\n", "bad.json"); });
    CHECK(open.line() == 1);
    CHECK(open.found() == "the end of the file");
  }
  SUBCASE("JSON that is not fio's") {
    CHECK(parse_error([&] { parse_fio_json_text("{ \"jobs\" : 3 }\n", "x.json"); }).field() == "jobs");
    CHECK(parse_error([&] { parse_fio_json_text("{ \"jobs\" : [] }\n", "x.json"); }).field() == "jobs");
    CHECK(parse_error([&] { parse_fio_json_text("{ \"fio version\" : \"fio-3\" }\n", "x.json"); }).field() == "jobs");
    CHECK(parse_error([&] { parse_fio_json_text("[1, 2]\n", "x.json"); }).found() == "no JSON object");
    CHECK(parse_error([&] { parse_fio_json_text("", "x.json"); }).found() == "an empty file");
  }
  SUBCASE("a second run appended to the file is refused at its line, not dropped") {
    const std::string two = std::string(kFioJson) + std::string(kFioJson);
    const int lines =
        static_cast<int>(std::count(std::string_view(kFioJson).begin(), std::string_view(kFioJson).end(), '\n'));
    const ParseError e = parse_error([&] { parse_fio_json_text(two, "two.json"); });
    CHECK(e.found() == "a second JSON object (one fio run per file)");
    CHECK(e.line() >= lines);
    CHECK(e.line() <= lines + 2);
    CHECK(parse_error([&] { parse_fio_json_text(std::string(kFioJson) + "\nsummary\n", "x.json"); }).found() ==
          "more text");
    CHECK_NOTHROW(parse_fio_json_text(std::string(kFioJson) + "\n\n  \n", "x.json"));
  }
  SUBCASE("a failed job, a bad option, a bad number") {
    const ParseError failed =
        parse_error([&] { parse_fio_json_text(replace_once(kFioJson, "\"error\" : 0", "\"error\" : 5"), "f.json"); });
    CHECK(failed.field() == "jobs[0].error");
    CHECK(failed.line() == 14);
    CHECK(parse_error([&] { parse_fio_json_text(replace_once(kFioJson, "\"1M\"", "\"1Q\""), "f.json"); }).field() ==
          "jobs[0].job options.bs");
    CHECK(parse_error([&] { parse_fio_json_text(replace_once(kFioJson, "\"255\"", "\"deep\""), "f.json"); }).field() ==
          "jobs[0].job options.iodepth");
    CHECK(parse_error([&] {
            parse_fio_json_text(replace_once(kFioJson, "\"read\",", "\"sideways\","), "f.json");
          }).field() == "jobs[0].job options.rw");
    const ParseError bw = parse_error([&] {
      parse_fio_json_text(replace_once(kFioJson, "\"bw_bytes\" : 9300000000", "\"bw_bytes\" : \"fast\""), "f.json");
    });
    CHECK(bw.field() == "jobs[0].read.bw_bytes");
    CHECK(bw.line() == 23);
  }
  SUBCASE("the CSV") {
    const std::string csv = data_text("azure-nd-h100-v5/fio.csv");
    const auto parse = [](const std::string& text) { return parse_fio_csv_text(text, "fio.csv"); };
    CHECK(parse_error([&] { parse(replace_once(csv, ",randread,", ",random,")); }).field() == "fio_rw (column 2)");
    CHECK(parse_error([&] { parse(replace_once(csv, ",512k,", ",512q,")); }).field() == "block_size (column 3)");
    CHECK(parse_error([&] { parse(replace_once(csv, ",255,", ",0,")); }).field() == "iodepth (column 4)");
    CHECK(parse_error([&] { parse(replace_once(csv, ",libaio,1,55.3", ",libaio,yes,55.3")); }).field() ==
          "direct (column 7)");
    const ParseError bw = parse_error([&] { parse(replace_once(csv, "55.3", "55,3")); });
    CHECK(bw.line() == 2);
    CHECK(bw.field() == "row");
  }
}
