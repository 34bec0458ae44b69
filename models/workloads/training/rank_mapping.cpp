#include "models/workloads/training/rank_mapping.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fathom::train {

std::vector<topo::VertexId> gpus_in_node_order(const topo::Topology& topology) {
  std::vector<topo::VertexId> gpus;
  for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
    if (topology.vertex(v).kind == topo::VertexKind::kGpu) gpus.push_back(v);
  }
  // The builder numbers GPUs node by node already; sorting by (node, id) keeps that explicit.
  std::stable_sort(gpus.begin(), gpus.end(), [&](topo::VertexId a, topo::VertexId b) {
    return topology.vertex(a).node < topology.vertex(b).node;
  });
  return gpus;
}

RankMapping::RankMapping(const TrainingSpec& spec, const topo::Topology& topology) {
  const ParallelSpec& p = spec.parallel;
  size_ = {p.tp, p.cp, p.ep, p.pp, p.dp / p.ep};
  int stride = 1;
  for (Dim d : p.order) {
    stride_[static_cast<std::size_t>(d)] = stride;
    stride *= size_[static_cast<std::size_t>(d)];
  }
  const std::vector<topo::VertexId> all = gpus_in_node_order(topology);
  if (static_cast<int>(all.size()) < spec.gpus) {
    throw std::invalid_argument("workload.gpus: the cluster has " + std::to_string(all.size()) +
                                " GPUs, the run asks for " + std::to_string(spec.gpus));
  }
  gpus_.assign(all.begin(), all.begin() + spec.gpus);
}

int RankMapping::rank(const Coord& c) const {
  int r = 0;
  for (std::size_t d = 0; d < kDims; ++d) r += c[d] * stride_[d];
  return r;
}

topo::VertexId RankMapping::gpu(const Coord& c) const { return gpus_.at(static_cast<std::size_t>(rank(c))); }

std::vector<topo::VertexId> RankMapping::group(Dim dim, const Coord& at) const {
  std::vector<topo::VertexId> out;
  Coord c = at;
  for (int i = 0; i < size(dim); ++i) {
    c[static_cast<std::size_t>(dim)] = i;
    out.push_back(gpu(c));
  }
  return out;
}

std::vector<topo::VertexId> RankMapping::data_parallel_group(const Coord& at) const {
  std::vector<topo::VertexId> out;
  Coord c = at;
  for (int d = 0; d < size(Dim::kDp); ++d) {
    for (int e = 0; e < size(Dim::kEp); ++e) {
      for (int x = 0; x < size(Dim::kCp); ++x) {
        c[static_cast<std::size_t>(Dim::kDp)] = d;
        c[static_cast<std::size_t>(Dim::kEp)] = e;
        c[static_cast<std::size_t>(Dim::kCp)] = x;
        out.push_back(gpu(c));
      }
    }
  }
  return out;
}

}  // namespace fathom::train
