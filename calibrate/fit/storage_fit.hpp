// Storage bandwidth against block size from fio runs: per direction (read, write, trim), access
// (sequential, random) and queue depth x jobs, the model
//   bandwidth(bs) = min(max_bandwidth, max_iops * bs)
// (a device saturates either its bandwidth with large blocks or its IOPS with small ones),
// fitted with fit_least_squares() on both parameters, each log-bounded (max_bandwidth in
// [1 kB/s, 1 PB/s], max_iops in [1, 1e12]/s: the fit runs on a log scale).
//
// Which points determine which parameter: a point on the bandwidth branch (max_bandwidth <=
// max_iops * bs) constrains max_bandwidth, one on the IOPS branch max_iops. The calibration CSVs
// measure 1M, 512k and 1k blocks sequentially and only 1k randomly, so:
//   - a group with at least two block sizes fits both parameters from its own rows;
//   - a group with a single block size (random access) takes max_bandwidth from the sequential
//     group of the same direction, queue depth and jobs (fixed, not refitted), and fits max_iops
//     from its rows; with no such group, max_bandwidth is not identified (NaN uncertainty) and
//     is set to the group's largest measured bandwidth, a lower bound.
// A parameter fitted from a single point has NaN uncertainty (no degree of freedom checks it).
// fio JSON gives IOPS directly: a row's block size is then bandwidth / IOPS, what fio moved per
// I/O, rather than the bs option.
#pragma once

#include <string>
#include <vector>

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/parsers/fio.hpp"

namespace fathom::calib {

struct StorageFit {
  std::string direction;         // "read", "write" or "trim"
  std::string access;            // "sequential" or "random"
  int iodepth = 1, numjobs = 1;  // as given; the model holds for this concurrency only
  double max_bandwidth_bytes_per_s = 0;
  double max_iops = 0;
  // How many of the rows determine each parameter, and where it came from: "fitted from 2 rows",
  // "from sequential read (fixed)", "not identified: ...".
  int bandwidth_points = 0, iops_points = 0;
  std::string bandwidth_source, iops_source;
  std::vector<FioResult> rows;  // sorted by block size
  // Parameters "max_bandwidth" (B/s) and "max_iops" (1/s); one prediction per row.
  FitResult fit;

  double bandwidth(double block_bytes) const;
};

// Groups in the order: direction (read, write, trim), then sequential before random, then queue
// depth and jobs ascending. std::invalid_argument naming the file when it has no result.
std::vector<StorageFit> fit_storage(const FioRuns& runs, const FitOptions& options = {});

}  // namespace fathom::calib
