// Internal to the nccl-tests parsers: what the log and CSV readers share.
#pragma once

#include <string>
#include <string_view>

#include "calibrate/parsers/nccl_tests.hpp"

namespace fathom::calib::detail {

// Merges what the caller knows into `log`; a contradiction is a ParseError at `op_line` (for the
// op) or `rank_line` (for ranks, nodes, GPUs per node).
void apply_nccl_options(NcclTestsLog& log, const NcclTestsOptions& options, int op_line, int rank_line);

// The op a binary or test name names: "all_reduce_perf", "all_reduce_perf_mpi" and
// ".../build/all_reduce_perf" give "all_reduce"; anything else gives "".
std::string op_from_binary(std::string_view name);

// The longest op name that `file_name` contains ("nccl_all_reduce.csv" gives "all_reduce"), or "".
std::string op_from_file_name(std::string_view file_name);

}  // namespace fathom::calib::detail
