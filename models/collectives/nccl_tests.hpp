// nccl-tests' conventions (operation names, NCCL_ALGO names, rank order, element counts and
// bandwidths) and one size of a sweep simulated on a cluster: what `fathom nccl-tests`,
// `fathom validate` and the calibration fits share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/collective_timer.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

struct NcclOp {
  Op op;
  const char* redop;    // nccl-tests' redop column
  int root;             // nccl-tests' root column (-1: none)
  bool per_rank_count;  // count column is size / n (all-gather, reduce-scatter, all-to-all)
};

// nccl-tests' binary names without "_perf": all_reduce, all_gather, reduce_scatter, alltoall,
// broadcast, reduce, sendrecv. Throws std::invalid_argument naming `flag`.
NcclOp parse_nccl_op(const std::string& name, const std::string& flag = "--op");

// fathom's names (auto, ring, tree, nvls, nvlstree, hd, hierarchical, direct) or NCCL_ALGO's
// (Ring, Tree, NVLS, NVLSTree; any case). "auto" (and "") is nullopt: chosen per size.
std::optional<Algorithm> parse_nccl_algo(const std::string& name, const std::string& flag = "--algo");

// NCCL_PROTO's names (Simple, LL128, LL; any case). "" is nullopt: chosen per size. NCCL also
// takes a list or an exclusion ("LL,LL128", "^LL"), which names no single protocol: nullopt too,
// and `*is_list` (when given) says so. Throws std::invalid_argument naming `flag` for another name.
std::optional<Protocol> parse_nccl_proto(const std::string& name, const std::string& flag = "NCCL_PROTO",
                                         bool* is_list = nullptr);

// The first `gpus_per_node` GPUs of each of the first `nodes` nodes, node-major.
std::vector<topo::VertexId> nccl_group_ranks(const topo::Topology& t, int nodes, int gpus_per_node);

struct NcclSize {
  std::int64_t bytes = 0;  // the size column: nccl-tests rounds to whole float elements per rank
  std::int64_t count = 0;  // the count column
  CollectiveTiming timing;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

// One size of the sweep over `ranks`: nccl-tests' element counts, the collective's time on the
// timer's cluster and nccl-tests' bandwidths. Throws std::invalid_argument if `algorithm`
// does not implement the op or fit the group.
NcclSize simulate_nccl_size(CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                            std::int64_t size, std::optional<Algorithm> algorithm);

// The same from the algorithm's uncontended closed form (CollectiveTimer::closed_form) instead of
// the simulation: equal to it within 0.1% for one collective alone (tests/models/collectives/), and
// fast and smooth enough for a fit to evaluate many times.
NcclSize closed_form_nccl_size(CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                               std::int64_t size, std::optional<Algorithm> algorithm);

}  // namespace fathom::coll
