// Vidur's NCCL profiles (collective_profile.hpp): a sweep per group, the least time of each
// size's repetitions, the bus bandwidth it gives, and bad input named by file, line and column.
#include "calibrate/parsers/collective_profile.hpp"

#include <doctest/doctest.h>

#include <string>

#include "calibrate/measurement.hpp"
#include "tests/calibrate/calibration_files.hpp"

using fathom::calib::CollectiveProfile;
using fathom::calib::Measurement;
using fathom::calib::parse_collective_profile_text;
using fathom::calib::ParseError;
using fathom::calib::test::data_path;
using fathom::calib::test::parse_error;

namespace {

const std::string kHeader =
    ",time_stats.all_reduce.min,time_stats.all_reduce.max,time_stats.all_reduce.mean,time_stats.all_reduce.median,"
    "time_stats.all_reduce.std,rank,num_workers,size,collective,devices_per_node,max_devices_per_node\n";

std::size_t rows(const CollectiveProfile& p) {
  std::size_t n = 0;
  for (const auto& log : p.logs) n += log.rows.size();
  return n;
}

}  // namespace

TEST_CASE("NCCL profile: a sweep per group, the least time, busbw by the op's factor") {
  const std::string text = kHeader +
                           "0,0.02,0.04,0.03,0.03,0.01,0,8,2048,all_reduce,8,8\n"
                           "1,0.05,0.06,0.055,0.055,0.005,0,8,1048576,all_reduce,8,8\n"
                           "2,0.04,0.05,0.045,0.045,0.005,0,8,1048576,all_reduce,8,8\n"  // listed twice: 40 us
                           "3,0.01,0.02,0.015,0.015,0.005,0,2,2048,all_reduce,1,8\n";
  const CollectiveProfile p = parse_collective_profile_text(text, "ar.csv");
  REQUIRE(p.logs.size() == 2);
  const auto& eight = p.logs[0];
  CHECK(eight.op == "all_reduce");
  CHECK(eight.ranks == 8);
  CHECK(eight.nodes == 1);
  CHECK(eight.gpus_per_node == 8);
  CHECK(eight.algo.empty());  // NCCL's own choice
  CHECK(eight.file == "ar.csv [8 GPUs, 1 node]");
  REQUIRE(eight.rows.size() == 2);
  CHECK(eight.rows[1].bytes == 1048576);
  CHECK(eight.rows[1].line == 4);
  CHECK(eight.rows[1].out_of_place->time_us == doctest::Approx(40));
  // algbw = 1,048,576 B / 40 us = 26.2 GB/s; busbw x 2 (8-1) / 8.
  CHECK(fathom::calib::busbw(eight.rows[1]) == doctest::Approx(1048576.0 / 40e3 * 14 / 8));
  const auto& two = p.logs[1];
  CHECK(two.nodes == 2);  // one GPU per node
  CHECK(two.gpus_per_node == 1);
  CHECK(two.file == "ar.csv [2 GPUs, 2 nodes]");
  // send/recv: busbw = algbw.
  std::string sr = kHeader + "0,0.01,0.02,0.015,0.015,0.005,0,2,4096,send_recv,2,8\n";
  for (std::size_t at; (at = sr.find("all_reduce")) != std::string::npos;) sr.replace(at, 10, "send_recv");
  const CollectiveProfile s = parse_collective_profile_text(sr, "sr.csv");
  REQUIRE(s.logs.size() == 1);
  CHECK(s.logs[0].op == "sendrecv");
  CHECK(fathom::calib::busbw(s.logs[0].rows[0]) == doctest::Approx(4096.0 / 10e3));
}

TEST_CASE("NCCL profile: the shipped files, recognised by their header") {
  const struct {
    const char* file;
    std::size_t groups, rows;
  } files[] = {{"h100_dgx/all_reduce.csv", 3, 2979},
               {"h100_dgx/send_recv.csv", 2, 1986},
               {"a100_dgx/all_reduce.csv", 7, 6951},
               {"a100_dgx/send_recv.csv", 2, 1986}};
  for (const auto& f : files) {
    CAPTURE(f.file);
    const Measurement m =
        fathom::calib::load_measurement(data_path(std::string("vidur-operator-profiles/network/") + f.file));
    CHECK(fathom::calib::kind_of(m) == "collective-profile");
    const auto& p = std::get<CollectiveProfile>(m);
    CHECK(p.logs.size() == f.groups);
    CHECK(rows(p) == f.rows);  // sizes listed twice count once
  }
}

TEST_CASE("NCCL profile: bad input names the file, the line and the column") {
  const std::string good = "0,0.02,0.04,0.03,0.03,0.01,0,8,2048,all_reduce,8,8\n";
  const struct {
    std::string row;
    std::string field;
  } cases[] = {{"0,0.02,0.04,0.03,0.03,0.01,0,8,2048,send_recv,8,8\n", "collective (column 10)"},
               {"0,0.02,0.04,0.03,0.03,0.01,0,8,2048,all_reduce,3,8\n", "devices_per_node"},
               {"0,0,0.04,0.03,0.03,0.01,0,8,2048,all_reduce,8,8\n", "time_stats.all_reduce.min"},
               {"0,0.02,0.04,0.03,0.03,0.01,0,1,2048,all_reduce,1,8\n", "num_workers"},
               {"0,0.02,0.04,0.03,0.03,0.01,0,8,0,all_reduce,8,8\n", "size"},
               {"0,0.02,0.04\n", ""}};
  for (const auto& c : cases) {
    CAPTURE(c.row);
    const ParseError e = parse_error([&] { parse_collective_profile_text(kHeader + good + c.row, "bad.csv"); });
    CHECK(e.file() == "bad.csv");
    CHECK(e.line() == 3);
    if (!c.field.empty()) CHECK(e.field() == c.field);
  }
  const ParseError no_rows = parse_error([&] { parse_collective_profile_text(kHeader, "empty.csv"); });
  CHECK(no_rows.file() == "empty.csv");
  const ParseError no_column =
      parse_error([&] { parse_collective_profile_text(",time_stats.all_reduce.min,size\n0,0.1,4\n", "cols.csv"); });
  CHECK(no_column.field() == "num_workers");
}
