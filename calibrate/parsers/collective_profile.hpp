// Vidur's NCCL profiles (microsoft/vidur, data/profiling/network/<gpu>/{all_reduce,send_recv}.csv;
// copied to data/calibration-data/vidur-operator-profiles/network/): one row per message size and
// group, the times of a few repetitions in milliseconds (min, max, mean, median, std), the
// group's size (num_workers) and how many of its GPUs share a node (devices_per_node). Small
// messages in 8 KiB steps: what the small-message costs are fitted on (docs/calibration.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "calibrate/parsers/nccl_tests.hpp"

namespace fathom::calib {

// One profile file: a sweep per group shape, each as the nccl-tests log it stands for.
struct CollectiveProfile {
  std::string file;
  // One per (num_workers, devices_per_node), in order of first appearance: op "all_reduce" or
  // "sendrecv", ranks, nodes and GPUs per node set, NCCL's own choice of algorithm (no NCCL_ALGO),
  // a row per size with the least of its repetitions as the out-of-place time and the algbw
  // and busbw it gives (busbw = algbw x 2(n-1)/n for an all-reduce, algbw for send/recv).
  // A size listed twice keeps its least time. Each log's `file` is the profile's file name with
  // the group appended ("all_reduce.csv [8 GPUs, 1 node]").
  std::vector<NcclTestsLog> logs;
};

// Whether a CSV's header cells are a Vidur NCCL profile's: an unnamed index column, then
// time_stats.all_reduce.min or time_stats.send_recv.min.
bool is_collective_profile_header(const std::vector<std::string>& header);

// Every error is a ParseError naming the file, the line and the column.
CollectiveProfile parse_collective_profile_text(std::string_view text, const std::string& file);

}  // namespace fathom::calib
