// The nccl-tests log parser on the three published logs of data/calibration-data/
// hgx-h100-ib-2node/, on hand-edited and other-version variants of them, and on broken ones.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "calibrate/parsers/nccl_tests.hpp"
#include "tests/calibrate/calibration_files.hpp"

using fathom::calib::busbw;
using fathom::calib::NcclTestsLog;
using fathom::calib::NcclTestsOptions;
using fathom::calib::parse_nccl_tests_log;
using fathom::calib::parse_nccl_tests_log_text;
using fathom::calib::ParseError;
using fathom::calib::test::data_path;
using fathom::calib::test::data_text;
using fathom::calib::test::parse_error;
using fathom::calib::test::replace_once;
using fathom::calib::test::with_crlf;

namespace {

const std::string kA = "hgx-h100-ib-2node/A_qoofyk_2node_XE9680_8B-16G.log";
const std::string kD = "hgx-h100-ib-2node/D_gj-aion_2node_default_1M-8G.log";
const std::string kG = "hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.log";

// The last row of log G as printed.
const std::string kGLastRow =
    "  8589934592    2147483648     float     sum      -1    41015  209.43  392.69      0    41056  209.22  392.30     "
    " "
    "0";

NcclTestsLog parse(const std::string& text, const NcclTestsOptions& options = {}) {
  return parse_nccl_tests_log_text(text, "edited.log", options);
}

// The mean of every busbw the rows print, which nccl-tests reports as "Avg bus bandwidth".
double mean_busbw(const NcclTestsLog& log) {
  double sum = 0;
  int n = 0;
  for (const auto& row : log.rows) {
    for (const auto& p : {row.out_of_place, row.in_place}) {
      if (p) {
        sum += p->busbw_gbps;
        ++n;
      }
    }
  }
  return sum / n;
}

// A minimal log: header, one rank, the table header and `rows`.
std::string tiny_log(const std::string& rows, const std::string& first_lines = "") {
  return first_lines +
         "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
         "validation: 1 graph: 0\n"
         "#\n# Using devices\n"
         "#  Rank  0 Group  0 Pid   1000 on node-a device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
         "#\n"
         "#                                                              out-of-place                       in-place\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)\n" +
         rows;
}

}  // namespace

TEST_CASE("log G: 2 nodes x 8 GPUs, NCCL_ALGO=Ring, 14 rows") {
  const NcclTestsLog log = parse_nccl_tests_log(data_path(kG));
  CHECK(log.file == data_path(kG).string());
  CHECK(log.source == fathom::calib::NcclTestsSource::log);
  CHECK(log.op == "all_reduce");
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.gpus_per_node == 8);
  CHECK(log.algo == "Ring");
  CHECK(log.env.size() == 3);  // -x LD_LIBRARY_PATH has no value and is no NCCL_ variable
  CHECK(log.env.at("NCCL_ALGO") == "Ring");
  CHECK(log.env.at("NCCL_MIN_CTAS") == "24");
  CHECK(log.env.at("NCCL_IB_QPS_PER_CONNECTION") == "2");
  CHECK(log.nccl_version.empty());
  // The command goes on on line 2 without a backslash.
  CHECK(log.command_line_line == 1);
  CHECK(log.min_bytes == 1048576);
  CHECK(log.max_bytes == 8589934592LL);
  CHECK(log.step_factor == 2);
  CHECK(log.gpus_per_process == 1);
  CHECK(log.warmup_iters == 5);
  CHECK(log.iters == 20);
  CHECK(log.device_names == std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  CHECK(log.rank_lines.size() == 16);
  CHECK(log.rank_lines[8].host == "b749a9b0");
  CHECK(log.rank_lines[8].device == 0);
  REQUIRE(log.rows.size() == 14);
  const auto& first = log.rows.front();
  CHECK(first.line == 26);
  CHECK(first.bytes == 1048576);
  CHECK(first.count == 262144);
  CHECK(first.type == "float");
  CHECK(first.redop == "sum");
  CHECK(first.root == -1);
  CHECK(first.out_of_place->time_us == doctest::Approx(156.9));
  CHECK(first.in_place->busbw_gbps == doctest::Approx(12.76));
  const auto& last = log.rows.back();
  CHECK(last.line == 39);
  CHECK(last.bytes == 8LL << 30);
  CHECK(last.in_place->busbw_gbps == doctest::Approx(392.30));
  CHECK(last.in_place->time_us == doctest::Approx(41056));
  CHECK(last.in_place->algbw_gbps == doctest::Approx(209.22));
  CHECK(last.in_place->wrong == 0);
  CHECK(last.out_of_place->busbw_gbps == doctest::Approx(392.69));
  CHECK(busbw(last) == doctest::Approx(392.30));
  CHECK(log.avg_busbw_gbps == doctest::Approx(248.186));
  CHECK(log.out_of_bounds == 0);
  CHECK(mean_busbw(log) == doctest::Approx(*log.avg_busbw_gbps).epsilon(1e-4));
}

TEST_CASE("log A: 32 rows from 8 B to 16 GiB, NCCL 2.26.2, the command over 9 lines") {
  const NcclTestsLog log = parse_nccl_tests_log(data_path(kA));
  CHECK(log.op == "all_reduce");  // from all_reduce_perf_mpi
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.gpus_per_node == 8);
  CHECK(log.nccl_version == "2.26.2");
  CHECK(log.cuda_version == "12.8");
  CHECK(log.algo.empty());
  CHECK(log.env.size() == 7);
  CHECK(log.env.at("NCCL_NET_GDR_LEVEL") == "1");
  CHECK(log.env.at("NCCL_P2P_LEVEL") == "NVL");
  CHECK(log.env.at("NCCL_IB_HCA") == "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  CHECK(log.command_line.find("all_reduce_perf_mpi -b 8 -e 16g -f 2 -g 1") != std::string::npos);
  CHECK(log.command_line.find('\\') == std::string::npos);
  CHECK(log.min_bytes == 8);
  CHECK(log.max_bytes == 16LL << 30);
  CHECK(log.rank_lines.front().host == "bm-h100-01");
  REQUIRE(log.rows.size() == 32);
  CHECK(log.rows.front().bytes == 8);
  CHECK(log.rows.back().bytes == 16LL << 30);
  CHECK(busbw(log.rows.back()) == doctest::Approx(469.10));
  CHECK(log.rows.back().out_of_place->time_us == doctest::Approx(68652));
  CHECK(log.avg_busbw_gbps == doctest::Approx(139.56));
  CHECK(mean_busbw(log) == doctest::Approx(*log.avg_busbw_gbps).epsilon(1e-4));
}

TEST_CASE("log D: no command line, so the op comes from the caller") {
  const NcclTestsLog log = parse_nccl_tests_log(data_path(kD));
  CHECK(log.op.empty());
  CHECK(log.command_line.empty());
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.rows.size() == 14);
  CHECK(busbw(log.rows.back()) == doctest::Approx(466.65));
  CHECK(mean_busbw(log) == doctest::Approx(*log.avg_busbw_gbps).epsilon(1e-4));
  const ParseError e = parse_error([&] { fathom::calib::require_op(log); });
  CHECK(e.field() == "op");

  NcclTestsOptions options;
  options.op = "all_reduce";
  options.nodes = 2;
  options.gpus_per_node = 8;
  const NcclTestsLog supplied = parse_nccl_tests_log(data_path(kD), options);
  CHECK(supplied.op == "all_reduce");
  CHECK(fathom::calib::require_op(supplied) == "all_reduce");
  CHECK(fathom::calib::require_nodes(supplied) == 2);
}

TEST_CASE("hand-edited logs: CRLF, extra spaces, a trailing comment") {
  const std::string g = data_text(kG);
  const NcclTestsLog original = parse(g);
  const NcclTestsLog crlf = parse(with_crlf(g));
  CHECK(crlf.rows.size() == 14);
  CHECK(crlf.algo == "Ring");
  CHECK(crlf.ranks == 16);
  CHECK(busbw(crlf.rows.back()) == doctest::Approx(392.30));
  CHECK(fathom::calib::same_measurement(original, crlf));

  const std::string edited = replace_once(
      g, kGLastRow,
      "8589934592 2147483648 float sum -1   41015 209.43 392.69 0\t41056   209.22   392.30   0   # best of three runs");
  const NcclTestsLog log = parse(edited);
  CHECK(log.rows.size() == 14);
  CHECK(log.rows.back().in_place->busbw_gbps == doctest::Approx(392.30));
  CHECK(log.rows.back().out_of_place->wrong == 0);
}

TEST_CASE("#wrong may be N/A (a run without validation)") {
  const NcclTestsLog log =
      parse(tiny_log("           8             2     float     sum      -1    24.52    0.00    0.00    N/A    24.70    "
                     "0.00    0.00    N/A\n"));
  REQUIRE(log.rows.size() == 1);
  CHECK_FALSE(log.rows[0].out_of_place->wrong.has_value());
  CHECK_FALSE(log.rows[0].in_place->wrong.has_value());
}

TEST_CASE("logs with one placement: 9-column rows") {
  const std::string in_place_only =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#                                                  in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    24.70    0.00    0.00      0\n"
      "          16             4     float     sum      -1    24.93    0.00    0.01      0\n";
  const NcclTestsLog in = parse(in_place_only);
  REQUIRE(in.rows.size() == 2);
  CHECK_FALSE(in.rows[1].out_of_place.has_value());
  CHECK(in.rows[1].in_place->busbw_gbps == doctest::Approx(0.01));
  CHECK(busbw(in.rows[1]) == doctest::Approx(0.01));
  CHECK(in.gpus_per_process == 8);

  // Without any header, a 9-column row is the first placement nccl-tests prints: out-of-place.
  const NcclTestsLog out = parse("    1048576   262144  float  sum  -1   93.25  11.24  21.08  0\n");
  REQUIRE(out.rows.size() == 1);
  CHECK(out.rows[0].out_of_place->busbw_gbps == doctest::Approx(21.08));
  CHECK_FALSE(out.rows[0].in_place.has_value());
  CHECK(busbw(out.rows[0]) == doctest::Approx(21.08));

  // The header says 13 columns: a 9-column row is then an error.
  const ParseError e =
      parse_error([&] { parse(tiny_log("    1048576   262144  float  sum  -1   93.25  11.24  21.08  0\n")); });
  CHECK(e.line() == 9);
  CHECK(e.field() == "row");
  CHECK(e.expected().find("as the header at line 7 has") != std::string::npos);
}

TEST_CASE("alltoall and sendrecv logs have the same layout") {
  const std::string alltoall =
      "mpirun -np 8 ./build/alltoall_perf -b 1K -e 1M -f 4 -g 1\n" +
      tiny_log(
          "        1024            32     float    none      -1    30.12    0.03    0.03      0    29.85    0.03    "
          "0.03      0\n"
          "     1048576         32768     float    none      -1    95.40   10.99    9.62      0    96.10   10.91    "
          "9.55      0\n");
  const NcclTestsLog a = parse(alltoall);
  CHECK(a.op == "alltoall");
  CHECK(a.min_bytes == 8);  // the header's minBytes, which the tool printed, over the command's -b
  CHECK(a.step_factor == 2);
  REQUIRE(a.rows.size() == 2);
  CHECK(a.rows[1].redop == "none");
  CHECK(busbw(a.rows[1]) == doctest::Approx(9.55));

  const NcclTestsLog s =
      parse("./build/sendrecv_perf -b 8 -e 8 -g 2\n" +
            tiny_log("           8             2     float     sum      -1    10.01    0.00    0.00   "
                     "   0    10.20    0.00    0.00      0\n"));
  CHECK(s.op == "sendrecv");
  CHECK(s.gpus_per_process == 2);  // -g on the command line
}

TEST_CASE("newer nccl-tests banners, INFO lines, tagged MPI output and other ways to set NCCL_*") {
  SUBCASE("nccl-tests version and Collective test lines") {
    const NcclTestsLog log = parse(
        "# nccl-tests version 2.18.3 nccl-headers=23003 nccl-library=23003\n"
        "# Collective test starting: all_gather_perf\n" +
        tiny_log("        1024           256     float    none      -1    63.73    0.02    0.03       0    57.93    "
                 "0.02    0.03       0\n") +
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.03 \n#\n# Collective test concluded: "
        "all_gather_perf\n");
    CHECK(log.op == "all_gather");
    CHECK(log.nccl_version == "2.30.3");  // from nccl-library=23003
    CHECK(log.avg_busbw_gbps == doctest::Approx(0.03));
  }
  SUBCASE("an NCCL version line wins over the library code") {
    const NcclTestsLog log = parse("# nccl-tests version 2.13.8 nccl-headers=21806 nccl-library=21806\n" +
                                   tiny_log("NCCL version 2.18.6+cuda12.2\n"
                                            "           8             2     float     sum      -1    24.52    0.00    "
                                            "0.00      0    24.70    0.00    0.00      0\n"));
    CHECK(log.nccl_version == "2.18.6");
    CHECK(log.cuda_version == "12.2");
  }
  SUBCASE("NCCL INFO lines report settings") {
    const NcclTestsLog log = parse(
        "node-a:1000:1000 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n"
        "node-a:1000:1000 [0] NCCL INFO NCCL_PROTO set by environment to Simple.\n" +
        tiny_log("           8             2     float     sum      -1    24.52    0.00    0.00      0    24.70    "
                 "0.00    0.00      0\n"));
    CHECK(log.algo == "Tree");
    CHECK(log.env.at("NCCL_PROTO") == "Simple");
  }
  SUBCASE("mpirun --tag-output") {
    std::string tagged;
    for (const std::string line :
         {"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20",
          "#  Rank  0 Group  0 Pid   1000 on node-a device  0 [0x19] NVIDIA H100",
          "#  Rank  1 Group  0 Pid   1001 on node-b device  0 [0x19] NVIDIA H100",
          "           8             2     float     sum      -1    24.52    0.00    0.00      0  "
          "  24.70    0.00    0.00      0"}) {
      tagged += "[1,0]<stdout>:" + line + "\n";
    }
    const NcclTestsLog log = parse(tagged);
    CHECK(log.ranks == 2);
    CHECK(log.nodes == 2);
    CHECK(log.gpus_per_node == 1);
    CHECK(log.rows.size() == 1);
  }
  SUBCASE("NCCL_X=... before the binary, -genv and --export") {
    const std::string row =
        "           8             2     float     sum      -1    24.52    0.00    0.00      0    24.70    0.00    0.00 "
        "     0\n";
    CHECK(parse("NCCL_ALGO=Tree NCCL_PROTO=LL ./build/all_reduce_perf -b 8 -e 8 -g 8\n" + tiny_log(row)).algo ==
          "Tree");
    CHECK(parse("export NCCL_ALGO=NVLS\nmpiexec -genv NCCL_ALGO NVLSTree -n 8 ./all_reduce_perf\n" + tiny_log(row))
              .algo == "NVLSTree");
    const NcclTestsLog slurm = parse(
        "srun --export=ALL,NCCL_ALGO=Ring,NCCL_MIN_NCHANNELS=32 ./build/all_reduce_perf "
        "--minbytes=8 --maxbytes 1G\n" +
        tiny_log(row));
    CHECK(slurm.algo == "Ring");
    CHECK(slurm.env.at("NCCL_MIN_NCHANNELS") == "32");
  }
  SUBCASE("older rank lines without Group, and summarised rank lines") {
    const std::string row =
        "           8             2     float     sum      -1    24.52    0.00    0.00      0    24.70    0.00    0.00 "
        "     0\n";
    const NcclTestsLog old = parse(
        "#   Rank  0 Pid  12345 on node1 device  0 [0x1b] Tesla V100-SXM2-32GB\n"
        "#   Rank  1 Pid  12345 on node1 device  1 [0x1c] Tesla V100-SXM2-32GB\n" +
        row);
    CHECK(old.ranks == 2);
    CHECK(old.nodes == 1);
    CHECK(old.gpus_per_node == 2);
    CHECK(old.rank_lines[1].device == 1);
    CHECK(old.device_names == std::vector<std::string>{"Tesla V100-SXM2-32GB"});

    const NcclTestsLog summary = parse(
        "#  Rank  0 .. Rank  7 on h100a-gpu-0001  NVIDIA H100 80GB HBM3\n"
        "#  Rank  8 .. Rank 15 on h100a-gpu-0002  NVIDIA H100 80GB HBM3\n" +
        row);
    CHECK(summary.ranks == 16);
    CHECK(summary.nodes == 2);
    CHECK(summary.gpus_per_node == 8);
  }
}

TEST_CASE("hosts with different rank counts leave GPUs per node unknown") {
  const NcclTestsLog log = parse(
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x1] G\n"
      "#  Rank  1 Group  0 Pid 2 on a device  1 [0x2] G\n"
      "#  Rank  2 Group  0 Pid 3 on b device  0 [0x1] G\n"
      "           8             2     float     sum      -1    24.52    0.00    0.00      0    24.70    0.00    0.00 "
      "     0\n");
  CHECK(log.ranks == 3);
  CHECK(log.nodes == 2);
  CHECK(log.gpus_per_node == 0);
  const ParseError e = parse_error([&] { fathom::calib::require_gpus_per_node(log); });
  CHECK(e.field() == "gpus_per_node");
  CHECK(e.line() == 1);
}

TEST_CASE("what the caller supplies must agree with the log") {
  const std::string g = data_text(kG);
  NcclTestsOptions agree;
  agree.op = "all_reduce";
  agree.ranks = 16;
  agree.nodes = 2;
  agree.gpus_per_node = 8;
  CHECK(parse(g, agree).nodes == 2);

  NcclTestsOptions nodes;
  nodes.nodes = 4;
  const ParseError n = parse_error([&] { parse(g, nodes); });
  CHECK(n.line() == 6);  // the first rank line
  CHECK(n.field() == "nodes");
  CHECK(std::string(n.what()) == "edited.log:6: nodes: expected 4 as the caller says, found 2 hosts in the rank lines");

  NcclTestsOptions op;
  op.op = "all_gather";
  const ParseError o = parse_error([&] { parse(g, op); });
  CHECK(o.line() == 1);
  CHECK(o.field() == "op");

  NcclTestsOptions unknown;
  unknown.op = "allreduce";
  const ParseError u = parse_error([&] { parse(g, unknown); });
  CHECK(u.field() == "op (supplied by the caller)");
  CHECK(u.expected().find("all_reduce") != std::string::npos);
}

TEST_CASE("broken logs: each error names the file, the line and the field") {
  const std::string g = data_text(kG);
  SUBCASE("a truncated row") {
    const ParseError e = parse_error([&] {
      parse(replace_once(g, kGLastRow, "  8589934592    2147483648     float     sum      -1    41015  209.43"));
    });
    CHECK(e.file() == "edited.log");
    CHECK(e.line() == 39);
    CHECK(e.field() == "row");
    CHECK(e.found().find("7 columns") == 0);
    CHECK(std::string(e.what()).find("edited.log:39: row: expected 13 columns") == 0);
  }
  SUBCASE("a non-numeric busbw") {
    const ParseError e = parse_error([&] { parse(replace_once(g, "392.30", "39O.30")); });
    CHECK(e.line() == 39);
    CHECK(e.field() == "in-place busbw (column 12)");
    CHECK(std::string(e.what()) ==
          "edited.log:39: in-place busbw (column 12): expected a number >= 0, found \"39O.30\"");
  }
  SUBCASE("a negative time, a bad #wrong, a bad type") {
    CHECK(parse_error([&] { parse(replace_once(g, "41015", "-41015")); }).field() == "out-of-place time (column 6)");
    CHECK(parse_error([&] { parse(replace_once(g, "392.69      0", "392.69      x")); }).field() ==
          "out-of-place #wrong (column 9)");
    CHECK(parse_error([&] { parse(replace_once(g, "2147483648     float", "2147483648     4.5")); }).field() ==
          "type (column 3)");
  }
  SUBCASE("an empty file") {
    const ParseError e = parse_error([&] { parse(""); });
    CHECK(e.line() == 1);
    CHECK(e.field() == "rows");
    CHECK(e.found() == "an empty file");
  }
  SUBCASE("a log with no rows") {
    const std::string header_only = g.substr(0, g.find("     1048576"));
    const ParseError e = parse_error([&] { parse(header_only); });
    CHECK(e.line() == 25);
    CHECK(e.field() == "rows");
    CHECK(e.found() == "none");
  }
  SUBCASE("a rank listed twice") {
    const std::string twice = replace_once(g, "#  Rank  1 Group  0 Pid 152499", "#  Rank  0 Group  0 Pid 152499");
    const ParseError e = parse_error([&] { parse(twice); });
    CHECK(e.line() == 7);
    CHECK(e.field() == "rank");
    CHECK(e.found() == "rank 0 again (first at line 6)");
  }
  SUBCASE("a malformed rank line") {
    const ParseError e = parse_error(
        [&] { parse(replace_once(g, "#  Rank  3 Group  0 Pid 152501 on", "#  Rank  3 Group  0 Pid 152501 at")); });
    CHECK(e.line() == 9);
    CHECK(e.field() == "rank line");
    CHECK(parse_error([&] { parse(replace_once(g, "Rank  3 Group", "Rank  x Group")); }).field() == "rank line: Rank");
  }
  SUBCASE("two runs in one file") {
    const ParseError e = parse_error([&] { parse(g + g); });
    CHECK(e.line() == 45);  // the second "# nThread" line
    CHECK(e.field() == "run");
  }
  SUBCASE("malformed values on the command line and in the header") {
    CHECK(parse_error([&] { parse(replace_once(g, "-b 1M", "-b 1X")); }).field() == "-b (command line)");
    CHECK(parse_error([&] { parse(replace_once(g, "-f 2 -g 1", "-f 2 -g zero")); }).line() == 2);
    CHECK(parse_error([&] { parse(replace_once(g, "nGpus 1", "nGpus one")); }).field() == "header nGpus");
    CHECK(parse_error([&] { parse(replace_once(g, "248.186", "n/a")); }).field() == "Avg bus bandwidth");
  }
  SUBCASE("a binary and a Collective test line that disagree") {
    const std::string row =
        "           8             2     float     sum      -1    24.52    0.00    0.00      0    24.70    0.00    0.00 "
        "     0\n";
    const ParseError e = parse_error(
        [&] { parse("./build/all_reduce_perf -b 8\n# Collective test starting: all_gather_perf\n" + tiny_log(row)); });
    CHECK(e.line() == 2);
    CHECK(e.field() == "op");
  }
}
