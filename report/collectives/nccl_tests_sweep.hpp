// `fathom nccl-tests`: NVIDIA nccl-tests' sweep of one collective over a scenario's cluster, as
// rows, and the table nccl-tests prints, so that scripts written for the real tool read it.
// docs/nccl-tests.md describes the columns, the bus-bandwidth factors and the parameters.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/collectives/nccl_tests.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {

// What the command line asks; an unset field takes the scenario's nccl-tests workload (or
// nccl-tests' own defaults), 0 nodes or GPUs every one.
struct NcclTestsRequest {
  std::string op;
  std::optional<std::int64_t> min_bytes, max_bytes;
  std::optional<std::int64_t> step_factor;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string algo = "auto";
  bool closed_form = false;  // each size by its closed form instead of its transfer DAG
  unsigned threads = 1;      // sizes timed side by side on this many threads (the same table on any count)
};

struct NcclTestsRow {
  coll::NcclSize size;
  std::string reason;  // why this algorithm ("set by --algo" when forced)
};

struct NcclTestsSweep {
  std::string scenario_file;
  std::string op_name;
  coll::NcclOp op;
  std::int64_t min_bytes = 0, max_bytes = 0;
  int step_factor = 2;
  int nodes = 0, gpus_per_node = 0;
  std::string algo;
  bool closed_form = false;
  coll::CollectiveParams params;
  std::vector<std::string> rank_vertices;  // each rank's GPU vertex name
  std::vector<NcclTestsRow> rows;
};

// Times every size. std::invalid_argument names the flag at fault (-b, -e, -f, --nodes,
// --gpus-per-node, --algo) for a request the scenario's cluster cannot run.
NcclTestsSweep run_nccl_tests_sweep(const scenario::Scenario& scenario, const NcclTestsRequest& request);

// nccl-tests' table, then the average bus bandwidth and the algorithm of every size.
void write_nccl_tests_table(std::FILE* out, const NcclTestsSweep& sweep);

}  // namespace fathom::report
