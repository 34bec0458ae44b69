// What the algorithms share beyond their builders: names, a message's slicing, the dispatch from
// an (operation, algorithm) pair to its builder, a group's shape and NCCL's choice of algorithm.
// Each builder has its own file: ring.cpp, tree.cpp, nvls.cpp, nvls_tree.cpp,
// halving_doubling.cpp, hierarchical.cpp and point_to_point.cpp.
#include "models/collectives/algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

std::string_view to_string(Op op) {
  switch (op) {
    case Op::kAllReduce:
      return "all_reduce";
    case Op::kReduceScatter:
      return "reduce_scatter";
    case Op::kAllGather:
      return "all_gather";
    case Op::kBroadcast:
      return "broadcast";
    case Op::kReduce:
      return "reduce";
    case Op::kAllToAll:
      return "all_to_all";
    case Op::kSendRecv:
      return "send_recv";
  }
  return "?";
}

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kDirect:
      return "direct";
    case Algorithm::kHalvingDoubling:
      return "halving_doubling";
    case Algorithm::kDoubleBinaryTree:
      return "double_binary_tree";
    case Algorithm::kHierarchical:
      return "hierarchical";
    case Algorithm::kNvls:
      return "nvls";
    case Algorithm::kNvlsTree:
      return "nvls_tree";
  }
  return "?";
}

using topo::VertexId;

int chain_slice_cap(int max_slices, std::size_t ranks) { return max_slices * std::max(1, static_cast<int>(ranks) - 2); }

int slice_count(double message_bytes, double slice_bytes, int max_slices) {
  if (!(slice_bytes > 0) || !(message_bytes > slice_bytes)) return 1;
  const double count = std::ceil(message_bytes / slice_bytes);
  return count >= static_cast<double>(max_slices) ? std::max(max_slices, 1) : static_cast<int>(count);
}

Slicing slicing(double message_bytes, double slice_bytes, int max_slices, std::int64_t step_ns) {
  Slicing s;
  s.count = slice_count(message_bytes, slice_bytes, max_slices);
  if (slice_bytes > 0 && message_bytes > slice_bytes) {
    // Beyond 2^30 real slices (absurdly small slices) the count saturates; the cost stays finite.
    s.real = static_cast<int>(std::min(std::ceil(message_bytes / slice_bytes), 1073741824.0));
  }
  s.real = std::max(s.real, s.count);
  if (s.count == 2) s.later_ns = step_ns * (s.real - 1);
  if (s.count >= 3) {
    s.later_ns = std::llround(static_cast<double>(step_ns) * (s.real - 2) / (s.count - 2));
    s.last_ns = step_ns;
  }
  return s;
}

std::optional<SteppedCollective> stepped_collective(Op op, Algorithm algorithm, const topo::Topology& topology,
                                                    const CollectiveSpec& spec) {
  if (!is_stepped_ring(op, algorithm) || spec.ranks.size() < 2) return std::nullopt;
  return SteppedCollective{ring_step_count(op, spec.ranks.size()),
                           [op, &topology, spec](int m) { return ring_first_steps(op, topology, spec, m); }};
}

void check_collective(Op op, Algorithm algorithm, const topo::Topology& topology, const CollectiveSpec& spec) {
  if (is_stepped_ring(op, algorithm)) {
    ring_first_steps(op, topology, spec, 0);  // validates the spec and finds the channels
  } else {
    build_collective(op, algorithm, topology, spec);
  }
}

TransferDag build_collective(Op op, Algorithm algorithm, const topo::Topology& topology, const CollectiveSpec& spec) {
  switch (op) {
    case Op::kAllReduce:
      switch (algorithm) {
        case Algorithm::kRing:
          return ring_all_reduce(topology, spec);
        case Algorithm::kHalvingDoubling:
          return halving_doubling_all_reduce(spec);
        case Algorithm::kDoubleBinaryTree:
          return tree_all_reduce(topology, spec);
        case Algorithm::kHierarchical:
          return hierarchical_all_reduce(topology, spec);
        case Algorithm::kNvls:
          return nvls_all_reduce(topology, spec);
        case Algorithm::kNvlsTree:
          return nvls_tree_all_reduce(topology, spec);
        case Algorithm::kDirect:
          break;
      }
      break;
    case Op::kReduceScatter:
      if (algorithm == Algorithm::kRing) return ring_reduce_scatter(topology, spec);
      break;
    case Op::kAllGather:
      if (algorithm == Algorithm::kRing) return ring_all_gather(topology, spec);
      break;
    case Op::kBroadcast:
      if (algorithm == Algorithm::kRing) return ring_broadcast(spec);
      break;
    case Op::kReduce:
      if (algorithm == Algorithm::kRing) return ring_reduce(spec);
      break;
    case Op::kAllToAll:
      if (algorithm == Algorithm::kDirect) return direct_all_to_all(spec);
      break;
    case Op::kSendRecv:
      if (algorithm == Algorithm::kDirect) return send_recv(spec);
      break;
  }
  throw std::invalid_argument("collective: no " + std::string(to_string(algorithm)) + " algorithm for " +
                              std::string(to_string(op)));
}

std::vector<std::vector<VertexId>> ranks_by_node(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  std::vector<std::vector<VertexId>> nodes;
  std::map<std::int32_t, std::size_t> index;
  for (VertexId v : ranks) {
    auto [it, fresh] = index.try_emplace(topology.vertex(v).node, nodes.size());
    if (fresh) nodes.emplace_back();
    nodes[it->second].push_back(v);
  }
  return nodes;
}

std::vector<std::vector<VertexId>> rails_of(const std::vector<std::vector<VertexId>>& nodes) {
  std::vector<std::vector<VertexId>> out(nodes.empty() ? 0 : nodes[0].size());
  for (const auto& n : nodes) {
    for (std::size_t j = 0; j < n.size() && j < out.size(); ++j) out[j].push_back(n[j]);
  }
  return out;
}

GroupShape group_shape(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  GroupShape shape;
  shape.ranks = static_cast<int>(ranks.size());
  std::map<std::int32_t, int> per_node;
  std::optional<VertexId> first_plane;
  shape.nvls = !ranks.empty();
  shape.one_nvlink_domain = !ranks.empty();
  for (VertexId v : ranks) {
    ++per_node[topology.vertex(v).node];
    std::optional<VertexId> plane;
    for (topo::LinkId l : topology.out_links(v)) {
      const VertexId to = topology.link(l).to;
      if (topology.vertex(to).kind == topo::VertexKind::kNvSwitch) plane = to;
    }
    if (!plane || !topology.vertex(*plane).in_switch_reduction) shape.nvls = false;
    if (!first_plane) first_plane = plane;
    if (!plane || plane != first_plane) shape.one_nvlink_domain = false;
  }
  shape.nodes = static_cast<int>(per_node.size());
  shape.ranks_per_node = per_node.empty() ? 0 : per_node.begin()->second;
  for (const auto& [node, count] : per_node) {
    if (count != shape.ranks_per_node) shape.ranks_per_node = 0;
  }
  return shape;
}

AlgorithmChoice choose_algorithm(Op op, double bytes, const GroupShape& shape, double nvls_min_bytes,
                                 double tree_max_bytes) {
  switch (op) {
    case Op::kAllReduce:
      if (shape.one_nvlink_domain) {
        if (shape.nvls && shape.ranks > 1 && bytes >= nvls_min_bytes) {
          return {Algorithm::kNvls, "one NVLink domain with in-switch reduction, large message"};
        }
        return {Algorithm::kRing, "one NVLink domain, small message or no NVLS"};
      }
      if (bytes < tree_max_bytes) {
        return {Algorithm::kDoubleBinaryTree, "across nodes, small message: log-depth latency"};
      }
      if (shape.nvls && shape.ranks_per_node > 0) {
        return {Algorithm::kNvlsTree, "across nodes with NVLS in every node, large message"};
      }
      return {Algorithm::kRing, "across nodes, large message: bandwidth-optimal"};
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kBroadcast:
    case Op::kReduce:
      return {Algorithm::kRing, "NCCL's only algorithm here without NVLS/CollNet"};
    case Op::kAllToAll:
      return {Algorithm::kDirect, "all-to-all: every pair at once"};
    case Op::kSendRecv:
      return {Algorithm::kDirect, "point-to-point"};
  }
  return {Algorithm::kRing, "default"};
}

}  // namespace fathom::coll
