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

using topo::VertexId;

void validate(const CollectiveSpec& spec, std::string_view what, std::size_t min_ranks = 1) {
  const std::string where(what);
  if (spec.ranks.size() < min_ranks) {
    throw std::invalid_argument(where + ": needs at least " + std::to_string(min_ranks) + " ranks, got " +
                                std::to_string(spec.ranks.size()));
  }
  std::unordered_set<VertexId> seen;
  for (VertexId v : spec.ranks) {
    if (!seen.insert(v).second)
      throw std::invalid_argument(where + ": vertex " + std::to_string(v) + " is a rank twice");
  }
  if (!(spec.slice_bytes >= 0) || !std::isfinite(spec.slice_bytes) || !(spec.nvls_slice_bytes >= 0) ||
      !std::isfinite(spec.nvls_slice_bytes)) {
    throw std::invalid_argument(where + ": slice sizes must be finite and >= 0, got " +
                                std::to_string(spec.slice_bytes) + " and " + std::to_string(spec.nvls_slice_bytes));
  }
  if (spec.max_slices < 1) {
    throw std::invalid_argument(where + ": max_slices must be >= 1, got " + std::to_string(spec.max_slices));
  }
  if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes)) {
    throw std::invalid_argument(where + ": bytes must be finite and >= 0, got " + std::to_string(spec.bytes));
  }
  if (spec.alpha_ns < 0) throw std::invalid_argument(where + ": alpha_ns must be >= 0");
  if (spec.step_ns < 0 || spec.nvls_step_ns < 0) {
    throw std::invalid_argument(where + ": step_ns and nvls_step_ns must be >= 0");
  }
  if (spec.root < 0 || static_cast<std::size_t>(spec.root) >= spec.ranks.size()) {
    throw std::invalid_argument(where + ": root " + std::to_string(spec.root) + " is not a rank");
  }
}

// Emits transfers and keeps each vertex's last send and last receive, so that a GPU's sends
// (and its receives) go one at a time, in emission order. Slice 0 of a message pays alpha and
// the route latency; later slices stream behind it (Transfer::pipelined), each after the
// per-slice delay of the message's Slicing (set_slicing; none unless the spec has a step_ns).
// The order is kept per channel (set_channel): the channels of a multi-channel ring run
// concurrently, so a GPU's sends in one channel do not wait for its sends in another.
class Builder {
 public:
  explicit Builder(std::int64_t alpha_ns) : alpha_ns_(alpha_ns) {}

  void set_channel(int channel) { channel_ = static_cast<std::uint32_t>(channel); }
  void set_slicing(const Slicing& slicing) { slicing_ = slicing; }

  TransferIndex add(VertexId src, VertexId dst, double bytes, std::vector<TransferIndex> after, int slice = 0,
                    bool serial_src = true, bool serial_dst = true) {
    if (serial_src) {
      if (auto it = last_send_.find(key(src)); it != last_send_.end()) after.push_back(it->second);
    }
    if (serial_dst) {
      if (auto it = last_recv_.find(key(dst)); it != last_recv_.end()) after.push_back(it->second);
    }
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    const std::int64_t delay = slice == 0 ? alpha_ns_ : slicing_.delay_ns(slice);
    const TransferIndex i = dag_.add({src, dst, bytes, delay, std::move(after), slice > 0});
    last_send_[key(src)] = i;
    last_recv_[key(dst)] = i;
    return i;
  }

  std::optional<TransferIndex> last_recv(VertexId v) const {
    auto it = last_recv_.find(key(v));
    return it == last_recv_.end() ? std::nullopt : std::optional<TransferIndex>(it->second);
  }

  TransferDag take() { return std::move(dag_); }

 private:
  std::uint64_t key(VertexId v) const { return (static_cast<std::uint64_t>(channel_) << 32) | v; }

  std::int64_t alpha_ns_;
  Slicing slicing_;
  std::uint32_t channel_ = 0;
  TransferDag dag_;
  std::unordered_map<std::uint64_t, TransferIndex> last_send_;
  std::unordered_map<std::uint64_t, TransferIndex> last_recv_;
};

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

// The NVSwitch plane a GPU hangs off (its NVLink peer).
VertexId plane_of(const topo::Topology& topology, VertexId gpu) {
  for (topo::LinkId l : topology.out_links(gpu)) {
    const VertexId to = topology.link(l).to;
    if (topology.vertex(to).kind == topo::VertexKind::kNvSwitch) return to;
  }
  throw std::invalid_argument("collective: " + topology.vertex(gpu).name + " has no NVLink to an NVSwitch plane");
}

// Ranks grouped by node (ranks_by_node); every node must hold as many.
std::vector<std::vector<VertexId>> by_node(const topo::Topology& topology, const std::vector<VertexId>& ranks,
                                           std::string_view what) {
  auto nodes = ranks_by_node(topology, ranks);
  for (const auto& n : nodes) {
    if (n.size() != nodes[0].size()) {
      throw std::invalid_argument(std::string(what) + ": every node must hold as many ranks (" +
                                  std::to_string(nodes[0].size()) + " vs " + std::to_string(n.size()) + ")");
    }
  }
  return nodes;
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

VertexId common_plane(const topo::Topology& topology, const std::vector<VertexId>& gpus, std::string_view what) {
  const VertexId plane = plane_of(topology, gpus[0]);
  for (VertexId g : gpus) {
    if (plane_of(topology, g) != plane) {
      throw std::invalid_argument(std::string(what) + ": " + topology.vertex(g).name +
                                  " is not on the NVSwitch plane " + topology.vertex(plane).name);
    }
  }
  if (!topology.vertex(plane).in_switch_reduction) {
    throw std::invalid_argument(std::string(what) + ": " + topology.vertex(plane).name +
                                " does not reduce in the switch (node.nvls is off)");
  }
  return plane;
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

std::vector<std::vector<int>> double_binary_tree_parents(int n) {
  std::vector<std::vector<int>> parent(2, std::vector<int>(static_cast<std::size_t>(std::max(n, 0)), -1));
  // Tree 0: rank r != 0 hangs off (r without its lowest set bit) with the next bit set, or
  // without it when that is out of range (NCCL's ncclGetBtree).
  for (int r = 1; r < n; ++r) {
    const int bit = r & -r;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    parent[0][static_cast<std::size_t>(r)] = up;
  }
  for (int r = 0; r < n; ++r) {
    // Tree 1: mirror (even n) or shift (odd n) of tree 0, as NCCL's ncclGetDtree does.
    const int as = n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n;
    const int p = parent[0][static_cast<std::size_t>(as)];
    parent[1][static_cast<std::size_t>(r)] = p < 0 ? -1 : (n % 2 == 0 ? n - 1 - p : (p + 1) % n);
  }
  return parent;
}

TransferDag double_binary_tree_all_reduce(const CollectiveSpec& spec) {
  validate(spec, "double binary tree all-reduce");
  const int n = static_cast<int>(spec.ranks.size());
  Builder b(spec.alpha_ns);
  if (n < 2) return b.take();
  const auto parent = double_binary_tree_parents(n);
  const auto un = static_cast<std::size_t>(n);
  // Per tree: children, depth (root 0), height (leaves 0).
  std::vector<std::vector<std::vector<int>>> children(2, std::vector<std::vector<int>>(un));
  std::vector<std::vector<int>> depth(2, std::vector<int>(un, 0)), height(2, std::vector<int>(un, 0));
  std::vector<int> root(2, 0), tree_height(2, 0);
  for (std::size_t t = 0; t < 2; ++t) {
    for (int r = 0; r < n; ++r) {
      const int p = parent[t][static_cast<std::size_t>(r)];
      if (p < 0) {
        root[t] = r;
      } else {
        children[t][static_cast<std::size_t>(p)].push_back(r);
      }
    }
    for (int r = 0; r < n; ++r) {
      int d = 0;
      for (int v = r; parent[t][static_cast<std::size_t>(v)] >= 0; v = parent[t][static_cast<std::size_t>(v)]) {
        ++d;
        auto& h = height[t][static_cast<std::size_t>(parent[t][static_cast<std::size_t>(v)])];
        h = std::max(h, d);
      }
      depth[t][static_cast<std::size_t>(r)] = d;
    }
    tree_height[t] = height[t][static_cast<std::size_t>(root[t])];
  }
  // Emit in wavefront order: piece c leaves a rank of height h upwards at step c + h and reaches
  // a rank of depth d downwards at step c + H + d - 1. Every dependency lies at an earlier step,
  // so this order is topological, and it interleaves the trees and the pieces the way a
  // pipelined implementation overlaps them.
  struct Item {
    int step;
    int tree;
    int down;
    int chunk;
    int rank;
  };
  const Slicing cut = slices(spec, spec.bytes / 2);
  const int chunks_per_tree = cut.count;
  b.set_slicing(cut);
  std::vector<Item> items;
  for (int t = 0; t < 2; ++t) {
    for (int c = 0; c < chunks_per_tree; ++c) {
      for (int r = 0; r < n; ++r) {
        if (r == root[static_cast<std::size_t>(t)]) continue;
        const auto tt = static_cast<std::size_t>(t);
        const auto rr = static_cast<std::size_t>(r);
        items.push_back({c + height[tt][rr], t, 0, c, r});
        items.push_back({c + tree_height[tt] + depth[tt][rr] - 1, t, 1, c, r});
      }
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b2) {
    return std::tie(a.step, a.tree, a.down, a.chunk, a.rank) < std::tie(b2.step, b2.tree, b2.down, b2.chunk, b2.rank);
  });
  const auto chunks = static_cast<std::size_t>(chunks_per_tree);
  // up[t][c * n + r]: rank r's send of piece c to its parent; down[...]: its receipt from the parent.
  std::vector<std::vector<TransferIndex>> up(2, std::vector<TransferIndex>(chunks * un)),
      down(2, std::vector<TransferIndex>(chunks * un));
  const auto piece = [&](int c) { return spec.bytes / 2 * cut.fraction(c); };
  for (const Item& it : items) {
    const auto t = static_cast<std::size_t>(it.tree);
    const auto r = static_cast<std::size_t>(it.rank);
    const auto c = static_cast<std::size_t>(it.chunk);
    const auto p = static_cast<std::size_t>(parent[t][r]);
    std::vector<TransferIndex> after;
    if (it.down == 0) {
      for (int ch : children[t][r]) after.push_back(up[t][c * un + static_cast<std::size_t>(ch)]);
      up[t][c * un + r] = b.add(spec.ranks[r], spec.ranks[p], piece(it.chunk), std::move(after), it.chunk);
    } else {
      if (static_cast<int>(p) == root[t]) {
        for (int ch : children[t][p]) after.push_back(up[t][c * un + static_cast<std::size_t>(ch)]);
      } else {
        after.push_back(down[t][c * un + p]);
      }
      down[t][c * un + r] = b.add(spec.ranks[p], spec.ranks[r], piece(it.chunk), std::move(after), it.chunk);
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

TransferDag nvls_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "NVLS-tree all-reduce");
  const auto nodes = by_node(topology, spec.ranks, "NVLS-tree all-reduce");
  const std::size_t g = nodes[0].size();
  const std::size_t node_count = nodes.size();
  std::vector<VertexId> planes;
  for (const auto& n : nodes) planes.push_back(common_plane(topology, n, "NVLS-tree all-reduce"));
  // Pipelined by slices: slice p is reduced in each node's switch, all-reduced across nodes on
  // each rail, and gathered back, each phase waiting only for the same slice's previous phase.
  // The phases are separate channels of the Builder, so a GPU sends (and receives) one slice
  // at a time per phase, in slice order, while the phases of different slices overlap.
  const Slicing cut = nvls_slices(spec, spec.bytes, g, spec.max_slices);
  // The rail rings' steps are cut as the NVLS phases are, but pay the ring protocol's step.
  const Slicing ring_cut =
      slicing(spec.bytes, spec.nvls_slice_bytes * static_cast<double>(g), spec.max_slices, spec.step_ns);
  const int slice_total = cut.count;
  const int steps = 2 * (static_cast<int>(node_count) - 1);
  Builder b(spec.alpha_ns);
  // ready[k][j]: the transfer after which node k's j-th GPU holds its share of the slice (the
  // node's sum after the reduce-scatter, the global sum after the ring).
  std::vector<std::vector<TransferIndex>> ready(node_count, std::vector<TransferIndex>(g));
  for (int p = 0; p < slice_total; ++p) {
    const double piece = spec.bytes * cut.fraction(p);           // per GPU into (RS) or out of (AG) the switch
    const double part = piece / static_cast<double>(g);          // GPU j's share of a slice
    const double step = part / static_cast<double>(node_count);  // one ring step on a rail
    b.set_channel(0);  // NVLS reduce-scatter: the switch returns part j of the node's sum to GPU j
    b.set_slicing(cut);
    for (std::size_t k = 0; k < node_count; ++k) {
      std::vector<TransferIndex> ups;
      for (VertexId gpu : nodes[k]) ups.push_back(b.add(gpu, planes[k], piece, {}, p, true, false));
      for (std::size_t j = 0; j < g; ++j) ready[k][j] = b.add(planes[k], nodes[k][j], part, ups, p, false, true);
    }
    b.set_channel(1);  // per rail, a ring all-reduce of the parts across nodes
    b.set_slicing(ring_cut);
    for (std::size_t j = 0; j < g && steps > 0; ++j) {
      std::vector<TransferIndex> received(node_count);
      for (int s = 0; s < steps; ++s) {
        std::vector<TransferIndex> next(node_count);
        for (std::size_t k = 0; k < node_count; ++k) {
          const std::size_t to = (k + 1) % node_count;
          next[to] = b.add(nodes[k][j], nodes[to][j], step, {s == 0 ? ready[k][j] : received[k]}, p);
        }
        received = std::move(next);
      }
      for (std::size_t k = 0; k < node_count; ++k) ready[k][j] = received[k];
    }
    b.set_channel(2);  // NVLS all-gather: each GPU puts its part in, the switch multicasts the slice
    b.set_slicing(cut);
    for (std::size_t k = 0; k < node_count; ++k) {
      std::vector<TransferIndex> ups;
      for (std::size_t j = 0; j < g; ++j) {
        ups.push_back(b.add(nodes[k][j], planes[k], part, {ready[k][j]}, p, true, false));
      }
      for (VertexId gpu : nodes[k]) b.add(planes[k], gpu, piece, ups, p, false, true);
    }
  }
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
          return double_binary_tree_all_reduce(spec);
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
          return {Algorithm::kNvls, "one NVLink domain with in-switch reduction, large message: NVLS"};
        }
        return {Algorithm::kRing, "one NVLink domain, small message or no NVLS: ring"};
      }
      if (bytes < tree_max_bytes) {
        return {Algorithm::kDoubleBinaryTree, "across nodes, small message: double binary tree (log-depth latency)"};
      }
      if (shape.nvls && shape.ranks_per_node > 0) {
        return {Algorithm::kNvlsTree, "across nodes with NVLS in every node, large message: NVLS-tree"};
      }
      return {Algorithm::kRing, "across nodes, large message: ring (bandwidth-optimal)"};
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kBroadcast:
    case Op::kReduce:
      return {Algorithm::kRing, "ring (NCCL's only algorithm here without NVLS/CollNet)"};
    case Op::kAllToAll:
      return {Algorithm::kDirect, "all-to-all: every pair at once"};
    case Op::kSendRecv:
      return {Algorithm::kDirect, "point-to-point"};
  }
  return {Algorithm::kRing, "default"};
}

}  // namespace fathom::coll
