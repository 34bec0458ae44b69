// Rank mapping: which GPU of the cluster runs which (tp, cp, ep, pp, dp) coordinate. Ranks
// are numbered with the dimensions in ParallelSpec::order, innermost first, and rank r runs on
// the r-th GPU in node order (n0.gpu0, n0.gpu1, ..., n1.gpu0, ...). The default order (tp, cp,
// ep, pp, dp) keeps a TP group inside an NVLink island, then CP and EP, then pipeline stages,
// with data-parallel replicas outermost.
#pragma once

#include <array>
#include <vector>

#include "models/workloads/training/training_spec.hpp"
#include "topologies/topology.hpp"

namespace fathom::train {

using Coord = std::array<int, kDims>;  // indexed by Dim; Dim::kDp counts replicas per EP group (dp / ep)

class RankMapping {
 public:
  // Throws std::invalid_argument if the cluster has fewer GPUs than spec.gpus.
  RankMapping(const TrainingSpec& spec, const topo::Topology& topology);

  int size(Dim d) const { return size_[static_cast<std::size_t>(d)]; }
  topo::VertexId gpu(const Coord& c) const;
  int rank(const Coord& c) const;
  // The ranks' GPUs along `dim` with the other coordinates of `at`, in coordinate order.
  std::vector<topo::VertexId> group(Dim dim, const Coord& at) const;
  // The data-parallel group of `at`: every (ep, dp) coordinate and, as Megatron-LM reduces
  // gradients over DP x CP, every cp coordinate; cp innermost, then ep.
  std::vector<topo::VertexId> data_parallel_group(const Coord& at) const;

 private:
  std::array<int, kDims> size_{};
  std::array<int, kDims> stride_{};
  std::vector<topo::VertexId> gpus_;  // by rank
};

// The cluster's GPUs in node order, then by their index in the node.
std::vector<topo::VertexId> gpus_in_node_order(const topo::Topology& topology);

}  // namespace fathom::train
