#include "models/collectives/algorithms.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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

namespace {

using detail::Builder;
using detail::by_node;
using detail::common_plane;
using detail::validate;
using topo::VertexId;

// `steps` ring steps over `order` (rank i sends to rank i+1): each rank sends step_bytes per
// step, in `chunks` slices. Slice c of step k at rank i forwards what rank i received as slice
// c of step k-1; step 0 waits for whatever rank i received last before this phase (the
// previous phase's result).
void ring_phase(Builder& b, const std::vector<VertexId>& order, int steps, double step_bytes, const Slicing& cut) {
  const std::size_t n = order.size();
  if (n < 2 || steps <= 0) return;
  b.set_slicing(cut);
  const int chunks = cut.count;
  const auto c_count = static_cast<std::size_t>(chunks);
  std::vector<std::optional<TransferIndex>> phase_start(n);
  for (std::size_t i = 0; i < n; ++i) phase_start[i] = b.last_recv(order[i]);
  // received[i * chunks + c]: the piece c rank i received in the previous step.
  std::vector<TransferIndex> received(n * c_count), next(n * c_count);
  for (int k = 0; k < steps; ++k) {
    for (std::size_t c = 0; c < c_count; ++c) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<TransferIndex> after;
        if (k > 0) {
          after.push_back(received[i * c_count + c]);
        } else if (phase_start[i]) {
          after.push_back(*phase_start[i]);
        }
        const std::size_t to = (i + 1) % n;
        next[to * c_count + c] = b.add(order[i], order[to], step_bytes * cut.fraction(static_cast<int>(c)),
                                       std::move(after), static_cast<int>(c));
      }
    }
    std::swap(received, next);
  }
}

// A pipelined chain order[0] -> order[1] -> ... : piece c moves on from a hop as soon as it arrived.
void chain(Builder& b, const std::vector<VertexId>& order, double bytes, const Slicing& cut) {
  if (order.size() < 2) return;
  b.set_slicing(cut);
  const int chunks = cut.count;
  const std::optional<TransferIndex> start = b.last_recv(order[0]);
  std::vector<TransferIndex> arrived(static_cast<std::size_t>(chunks));
  for (std::size_t c = 0; c < arrived.size(); ++c) {
    for (std::size_t j = 0; j + 1 < order.size(); ++j) {
      std::vector<TransferIndex> after;
      if (j > 0) {
        after.push_back(arrived[c]);
      } else if (start) {
        after.push_back(*start);
      }
      arrived[c] = b.add(order[j], order[j + 1], bytes * cut.fraction(static_cast<int>(c)), std::move(after),
                         static_cast<int>(c));
    }
  }
}

std::vector<VertexId> rotated(const std::vector<VertexId>& ranks, std::size_t first) {
  std::vector<VertexId> order;
  for (std::size_t j = 0; j < ranks.size(); ++j) order.push_back(ranks[(first + j) % ranks.size()]);
  return order;
}

// NVLS inside one plane: every GPU sends `up_bytes` into the switch, and once the switch holds
// slice c from all of them it sends slice c's share of `down_bytes` to each GPU. The
// switch's links are separate, so only the GPU ends are serialised.
void nvls_phase(Builder& b, const std::vector<VertexId>& gpus, VertexId plane, double up_bytes, double down_bytes,
                const Slicing& cut) {
  b.set_slicing(cut);
  const int chunks = cut.count;
  std::vector<std::optional<TransferIndex>> start(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) start[i] = b.last_recv(gpus[i]);
  for (int c = 0; c < chunks; ++c) {
    std::vector<TransferIndex> ups;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      std::vector<TransferIndex> after;
      if (c == 0 && start[i]) after.push_back(*start[i]);
      ups.push_back(b.add(gpus[i], plane, up_bytes * cut.fraction(c), std::move(after), c, true, false));
    }
    for (VertexId g : gpus) b.add(plane, g, down_bytes * cut.fraction(c), ups, c, false, true);
  }
}

// Slices of a point-to-point message, and of an NVLS phase on a plane of `gpus` GPUs moving
// `bytes` per GPU (the larger of its up and down sizes).
Slicing slices(const CollectiveSpec& spec, double message_bytes) {
  return slicing(message_bytes, spec.slice_bytes, spec.max_slices, spec.step_ns);
}
Slicing chain_slices(const CollectiveSpec& spec) {
  return slicing(spec.bytes, spec.slice_bytes, chain_slice_cap(spec.max_slices, spec.ranks.size()), spec.step_ns);
}
Slicing nvls_slices(const CollectiveSpec& spec, double bytes, std::size_t gpus, int cap) {
  return slicing(bytes, spec.nvls_slice_bytes * static_cast<double>(gpus), cap, spec.nvls_step_ns);
}

void ring(Builder& b, const CollectiveSpec& spec, const std::vector<VertexId>& order, int steps, double step_bytes) {
  ring_phase(b, order, steps, step_bytes, slices(spec, step_bytes));
}

void nvls(Builder& b, const CollectiveSpec& spec, const std::vector<VertexId>& gpus, VertexId plane, double up_bytes,
          double down_bytes) {
  nvls_phase(
      b, gpus, plane, up_bytes, down_bytes,
      nvls_slices(spec, std::max(up_bytes, down_bytes), gpus.size(), nvls_slice_cap(spec.max_slices, gpus.size())));
}

}  // namespace

int nvls_slice_cap(int max_slices, std::size_t gpus) { return max_slices * std::max(1, static_cast<int>(gpus)); }

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

std::vector<std::vector<VertexId>> ring_channels(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  const GroupShape shape = group_shape(topology, ranks);
  if (shape.nodes < 2 || shape.ranks_per_node < 2) return {ranks};
  const auto nodes = ranks_by_node(topology, ranks);
  const auto g = static_cast<std::size_t>(shape.ranks_per_node);
  std::vector<std::vector<VertexId>> channels(g);
  for (std::size_t c = 0; c < g; ++c) {
    for (const auto& node : nodes) {
      for (std::size_t j = 0; j < g; ++j) channels[c].push_back(node[(c + j) % g]);
    }
  }
  return channels;
}

namespace {

// A ring collective of `steps(n)` steps of bytes / n, one ring per channel on bytes / C.
TransferDag channel_rings(const std::vector<std::vector<VertexId>>& channels, const CollectiveSpec& spec,
                          bool all_reduce) {
  Builder b(spec.alpha_ns);
  const int n = static_cast<int>(spec.ranks.size());
  const double channel_bytes = spec.bytes / static_cast<double>(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    b.set_channel(static_cast<int>(c));
    ring(b, spec, channels[c], all_reduce ? 2 * (n - 1) : n - 1, channel_bytes / n);
  }
  return b.take();
}

}  // namespace

TransferDag ring_all_reduce(const CollectiveSpec& spec) {
  validate(spec, "ring all-reduce");
  return channel_rings({spec.ranks}, spec, true);
}

TransferDag ring_reduce_scatter(const CollectiveSpec& spec) {
  validate(spec, "ring reduce-scatter");
  return channel_rings({spec.ranks}, spec, false);
}

TransferDag ring_all_gather(const CollectiveSpec& spec) {
  validate(spec, "ring all-gather");
  return channel_rings({spec.ranks}, spec, false);
}

TransferDag ring_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring all-reduce");
  return channel_rings(ring_channels(topology, spec.ranks), spec, true);
}

TransferDag ring_reduce_scatter(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring reduce-scatter");
  return channel_rings(ring_channels(topology, spec.ranks), spec, false);
}

TransferDag ring_all_gather(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring all-gather");
  return channel_rings(ring_channels(topology, spec.ranks), spec, false);
}

TransferDag ring_broadcast(const CollectiveSpec& spec) {
  validate(spec, "ring broadcast");
  Builder b(spec.alpha_ns);
  chain(b, rotated(spec.ranks, static_cast<std::size_t>(spec.root)), spec.bytes, chain_slices(spec));
  return b.take();
}

TransferDag ring_reduce(const CollectiveSpec& spec) {
  validate(spec, "ring reduce");
  Builder b(spec.alpha_ns);
  chain(b, rotated(spec.ranks, static_cast<std::size_t>(spec.root) + 1), spec.bytes, chain_slices(spec));
  return b.take();
}

TransferDag direct_all_to_all(const CollectiveSpec& spec) {
  validate(spec, "direct all-to-all");
  Builder b(spec.alpha_ns);
  const std::size_t n = spec.ranks.size();
  // Everything at once: a GPU's n-1 sends share its links max-min fairly.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 1; k < n; ++k) {
      b.add(spec.ranks[i], spec.ranks[(i + k) % n], spec.bytes / static_cast<double>(n), {}, 0, false, false);
    }
  }
  return b.take();
}

TransferDag send_recv(const CollectiveSpec& spec) {
  validate(spec, "send/recv", 2);
  Builder b(spec.alpha_ns);
  const std::size_t n = spec.ranks.size();
  if (n == 2) {
    b.add(spec.ranks[0], spec.ranks[1], spec.bytes, {});
  } else {
    for (std::size_t r = 0; r < n; ++r) b.add(spec.ranks[r], spec.ranks[(r + 1) % n], spec.bytes, {});
  }
  return b.take();
}

TransferDag halving_doubling_all_reduce(const CollectiveSpec& spec) {
  validate(spec, "halving-doubling all-reduce");
  const std::size_t n = spec.ranks.size();
  if (!std::has_single_bit(n)) {
    throw std::invalid_argument("halving-doubling all-reduce: the group size must be a power of two, got " +
                                std::to_string(n));
  }
  Builder b(spec.alpha_ns);
  std::vector<std::size_t> distances;  // reduce-scatter by halving, then all-gather by doubling
  for (std::size_t d = n / 2; d >= 1; d /= 2) distances.push_back(d);
  for (std::size_t d = 1; d < n; d *= 2) distances.push_back(d);
  for (std::size_t s = 0; s < distances.size(); ++s) {
    const std::size_t d = distances[s];
    // The segment exchanged is n / (2 d) of the buffer's n pieces: S/2, S/4, ... then back up.
    const double bytes = spec.bytes * static_cast<double>(d) / static_cast<double>(n);
    const Slicing cut = slices(spec, bytes);
    const int chunks = cut.count;
    b.set_slicing(cut);
    std::vector<std::optional<TransferIndex>> start(n);
    for (std::size_t i = 0; i < n; ++i) start[i] = b.last_recv(spec.ranks[i]);
    for (int c = 0; c < chunks; ++c) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<TransferIndex> after;
        if (c == 0 && start[i]) after.push_back(*start[i]);
        b.add(spec.ranks[i], spec.ranks[i ^ d], bytes * cut.fraction(c), std::move(after), c);
      }
    }
  }
  return b.take();
}

TransferDag hierarchical_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "hierarchical all-reduce");
  const auto nodes = by_node(topology, spec.ranks, "hierarchical all-reduce");
  const int g = static_cast<int>(nodes[0].size());
  const int node_count = static_cast<int>(nodes.size());
  Builder b(spec.alpha_ns);
  for (const auto& n : nodes) ring(b, spec, n, g - 1, spec.bytes / g);
  // After the ring reduce-scatter each rail's ranks hold the same slice index: all-reduce it.
  for (const auto& rail : rails_of(nodes)) ring(b, spec, rail, 2 * (node_count - 1), spec.bytes / g / node_count);
  for (const auto& n : nodes) ring(b, spec, n, g - 1, spec.bytes / g);
  return b.take();
}

TransferDag nvls_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "NVLS all-reduce");
  const VertexId plane = common_plane(topology, spec.ranks, "NVLS all-reduce");
  Builder b(spec.alpha_ns);
  nvls(b, spec, spec.ranks, plane, spec.bytes, spec.bytes);
  return b.take();
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
