// One nccl-tests measurement as the fits and `fathom validate` use it: what ran (operation,
// nodes, GPUs per node, forced algorithm) and the bus bandwidth it reached per size, in-place
// where the file has both placements. What the file does not say comes from the caller, and
// what neither says is an error naming the file and the option that would supply it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/parsers/nccl_tests.hpp"
#include "models/collectives/algorithms.hpp"
#include "models/collectives/nccl_tests.hpp"

namespace fathom::calib {

struct BusbwPoint {
  std::int64_t bytes = 0;
  double busbw_gbps = 0;  // measured, GB/s
  int line = 0;           // the row's line in its file
};

struct BusbwSeries {
  std::string file;
  std::string op_name;  // nccl-tests' name: all_reduce, ...
  coll::NcclOp op{};
  int nodes = 0;
  int gpus_per_node = 0;
  std::string algo_name;                     // as given (NCCL_ALGO or --algo); empty: NCCL's choice
  std::optional<coll::Algorithm> algorithm;  // nullopt: chosen per size, as NCCL would
  std::optional<coll::Protocol> protocol;    // the log's NCCL_PROTO; nullopt: chosen per size
  std::string algo_stated;                   // busbw CSV: the algorithm every row names; else empty
  std::vector<BusbwPoint> points;            // every row with a positive busbw, in file order
  std::vector<std::string> assumed;          // what was assumed, for the report ("1 node: the file does not say")

  std::int64_t ranks() const { return std::int64_t{nodes} * gpus_per_node; }
};

// What the caller knows. `op`, `algo`, `nodes` and `gpus_per_node` override the file (a
// command-line flag); the defaults fill only what the file leaves unknown, and are recorded in
// BusbwSeries::assumed.
struct SeriesOptions {
  std::string op, algo;
  int nodes = 0, gpus_per_node = 0;
  int default_nodes = 0, default_gpus_per_node = 0;
};

// Throws std::invalid_argument naming the file and what is missing ("the node count is
// unknown: pass --nodes"), or an unknown operation or algorithm.
BusbwSeries busbw_series(const NcclTestsLog& log, const SeriesOptions& options);

// A busbw CSV whose rows all name one algorithm (`algo_stated`) records the algorithm that ran:
// when neither NCCL_ALGO nor --algo forced one, the series runs the stated algorithm, as if
// forced, where the measured system can run it. NVLS and NVLS-tree need in-switch reduction
// (`nvls_hardware`); a statement the system cannot run (the A100 table of the Azure data names
// NVLS, which A100 has not) is recorded in `assumed` and the algorithm stays NCCL's choice.
void apply_stated_algorithm(BusbwSeries& series, bool nvls_hardware);

}  // namespace fathom::calib
