// nccl-tests results (NVIDIA nccl-tests and AMD rccl-tests: all_reduce_perf and its siblings):
// the log as the tool prints it, and the two CSV forms kept in data/calibration-data/. All three
// give an NcclTestsLog. docs/calibration.md describes what each reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

// One placement's columns of a row: time, algorithm and bus bandwidth, and the #wrong count
// (nullopt when the log prints N/A, i.e. the run did not validate). In the busbw-only CSV form
// the time and algbw are unknown and hold NaN.
struct Placement {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<std::int64_t> wrong;
};

// One message size of the sweep. `line` is the row's 1-based line in its file.
struct NcclTestsRow {
  std::int64_t bytes = 0;
  std::int64_t count = 0;  // elements; 0 where the source does not give it (busbw-only CSV)
  std::string type;        // "float", "half", ... (empty in the busbw-only CSV)
  std::string redop;       // "sum", "none", ... (empty in the busbw-only CSV)
  int root = -1;
  std::optional<Placement> out_of_place;
  std::optional<Placement> in_place;
  std::string size_label;   // busbw-only CSV: the size label as published ("65K"); else empty
  std::string algo_stated;  // busbw-only CSV: the algorithm the source names for the row; else empty
  int line = 0;
};

// In-place busbw when the row has it, else out-of-place busbw.
double busbw(const NcclTestsRow& row);

// A "#  Rank  3 Group  0 Pid 1234 on HOST device  3 [0000:5d:00] NVIDIA H100 80GB HBM3" line.
struct NcclTestsRank {
  int rank = 0;
  std::string host;
  int device = -1;  // -1 when the line does not say (a "Rank 0 .. Rank 7 on HOST" summary)
  std::string device_name;
  int line = 0;
};

enum class NcclTestsSource {
  log,        // nccl-tests' own output
  csv,        // size_bytes,count,type,redop,root,oop_time_us,...,ip_wrong
  busbw_csv,  // size_label_source,size_bytes_derived,algo_stated,busbw_inplace_GBps
};

struct NcclTestsLog {
  std::string file;
  NcclTestsSource source = NcclTestsSource::log;
  // all_reduce, all_gather, reduce_scatter, alltoall, sendrecv, broadcast, reduce, gather,
  // scatter or hypercube; from the binary name (all_reduce_perf, all_reduce_perf_mpi), the
  // "# Collective test starting:" line, the caller, or a CSV file name that names one; empty
  // when none says.
  std::string op;
  // 0 = unknown. From the rank lines; a CSV has none, so the caller supplies them.
  int ranks = 0;
  int nodes = 0;                           // distinct hosts
  int gpus_per_node = 0;                   // ranks per host, when every host has the same number
  std::string nccl_version;                // "2.26.2" (RCCL's for rccl-tests); empty when not printed
  std::string cuda_version;                // "12.8" from "NCCL version 2.26.2+cuda12.8"; empty when not printed
  std::map<std::string, std::string> env;  // NCCL_* variables set on the command line or reported by NCCL
  std::string algo;                        // env NCCL_ALGO, empty if unset
  std::vector<NcclTestsRow> rows;

  // What else the log says, when it says it.
  std::string command_line;   // the command as printed, continuation lines joined with spaces
  int command_line_line = 0;  // where it starts
  // The header's minBytes, maxBytes and step (what the tool ran), else the command's -b, -e, -f.
  std::optional<std::int64_t> min_bytes, max_bytes;
  std::optional<std::int64_t> step_factor;
  std::optional<int> gpus_per_process;              // -g, else the header's nGpus
  std::optional<int> threads, warmup_iters, iters;  // header
  std::vector<NcclTestsRank> rank_lines;
  std::vector<std::string> device_names;      // distinct, in order of first appearance
  std::optional<double> avg_busbw_gbps;       // "# Avg bus bandwidth : x"
  std::optional<std::int64_t> out_of_bounds;  // "# Out of bounds values : n OK"
};

// What the caller knows that the input may not say. A value that contradicts the input is an
// error; an unknown one in the input is taken from here.
struct NcclTestsOptions {
  std::string op;
  int ranks = 0;
  int nodes = 0;
  int gpus_per_node = 0;
};

// nccl-tests output as printed (a .log). Throws ParseError for a data row that does not parse
// (naming the column), a malformed header, rank or command-line value, a second run in the same
// file, a contradiction with `options`, and a log without data rows.
NcclTestsLog parse_nccl_tests_log(const std::filesystem::path& file, const NcclTestsOptions& options = {});
NcclTestsLog parse_nccl_tests_log_text(std::string_view text, const std::string& file,
                                       const NcclTestsOptions& options = {});

// The CSV forms, chosen by their header; any other header is a ParseError listing both.
NcclTestsLog parse_nccl_tests_csv(const std::filesystem::path& file, const NcclTestsOptions& options = {});
NcclTestsLog parse_nccl_tests_csv_text(std::string_view text, const std::string& file,
                                       const NcclTestsOptions& options = {});

// The two CSV headers, as written in the first line.
extern const std::string kNcclTestsCsvHeader;
extern const std::string kNcclTestsBusbwCsvHeader;

// True when `a` and `b` hold the same measurement: a .log and the .csv made from it. Same ops
// (where both are known), the same sizes in the same order, and for every placement both give
// the same busbw to the printed precision (two decimals). Such a pair is counted once.
bool same_measurement(const NcclTestsLog& a, const NcclTestsLog& b);

// The fields a caller needs, or a ParseError naming the field and what would have given it.
int require_ranks(const NcclTestsLog& log);
int require_nodes(const NcclTestsLog& log);
int require_gpus_per_node(const NcclTestsLog& log);
const std::vector<NcclTestsRow>& require_rows(const NcclTestsLog& log);
const std::string& require_op(const NcclTestsLog& log);

// The ops nccl-tests has a binary for, as they appear in the binary names.
const std::vector<std::string>& nccl_tests_ops();

}  // namespace fathom::calib
