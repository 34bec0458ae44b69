// What `fathom nccl-tests` and `fathom validate` share: nccl-tests' operation names and
// conventions, and one size of a sweep simulated on a cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/collective_timer.hpp"
#include "topologies/topology.hpp"

namespace fathom::cli {

struct NcclOp {
  coll::Op op;
  const char* redop;    // nccl-tests' redop column
  int root;             // nccl-tests' root column (-1: none)
  bool per_rank_count;  // count column is size / n (all-gather, reduce-scatter, all-to-all)
};

// nccl-tests' binary names without "_perf": all_reduce, all_gather, reduce_scatter, alltoall,
// broadcast, reduce, sendrecv. Throws std::invalid_argument naming `flag`.
NcclOp parse_nccl_op(const std::string& name, const std::string& flag = "--op");

// fathom's names (auto, ring, tree, nvls, nvlstree, hd, hierarchical, direct) or NCCL_ALGO's
// (Ring, Tree, NVLS, NVLSTree; any case). "auto" (and "") is nullopt: chosen per size.
std::optional<coll::Algorithm> parse_nccl_algo(const std::string& name, const std::string& flag = "--algo");

// The first `gpus_per_node` GPUs of each of the first `nodes` nodes, node-major.
std::vector<topo::VertexId> nccl_group_ranks(const topo::Topology& t, int nodes, int gpus_per_node);

struct NcclSize {
  std::int64_t bytes = 0;  // the size column: nccl-tests rounds to whole float elements per rank
  std::int64_t count = 0;  // the count column
  coll::CollectiveTiming timing;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

// One size of the sweep over `ranks`: nccl-tests' element counts, the collective's time on the
// timer's cluster and nccl-tests' bandwidths. Throws std::invalid_argument if `algorithm`
// does not implement the op or fit the group.
NcclSize simulate_nccl_size(coll::CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                            std::int64_t size, std::optional<coll::Algorithm> algorithm);

}  // namespace fathom::cli
