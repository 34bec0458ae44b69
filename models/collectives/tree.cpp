// The double binary tree all-reduce (algorithms.hpp): NCCL's trees over the ranks of one node,
// and across nodes a chain inside every node joined by the two trees over the nodes.
#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::Delays;
using detail::PipelineDag;
using detail::Ports;
using detail::validate;
using topo::VertexId;

std::vector<std::vector<int>> double_binary_tree_parents(int n) {
  std::vector<std::vector<int>> parent(2, std::vector<int>(static_cast<std::size_t>(std::max(n, 0)), -1));
  // Tree 0: rank r != 0 hangs off (r without its lowest set bit) with the next bit set, or
  // without it when that is out of range (NCCL's ncclGetBtree, src/graph/trees.cc).
  for (int r = 1; r < n; ++r) {
    const int bit = r & -r;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    parent[0][static_cast<std::size_t>(r)] = up;
  }
  // Tree 1 (ncclGetDtree): tree 0 shifted by one rank for even n, so that its interior ranks
  // (even in tree 0) become odd; mirrored (r -> n-1-r) for odd n.
  for (int r = 0; r < n; ++r) {
    const int as = n % 2 == 0 ? (r - 1 + n) % n : n - 1 - r;
    const int p = parent[0][static_cast<std::size_t>(as)];
    parent[1][static_cast<std::size_t>(r)] = p < 0 ? -1 : (n % 2 == 0 ? (p + 1) % n : n - 1 - p);
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
  const Slicing cut = slicing(spec.bytes / 2, spec.slice_bytes, spec.max_slices, spec.step_ns);
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

std::vector<std::vector<std::vector<VertexId>>> tree_rails(const topo::Topology& topology,
                                                           const std::vector<VertexId>& ranks) {
  const auto nodes = ranks_by_node(topology, ranks);
  bool equal = !nodes.empty();
  for (const auto& node : nodes) equal = equal && node.size() == nodes[0].size();
  const std::size_t g = equal ? nodes[0].size() : 1;
  std::vector<std::vector<std::vector<VertexId>>> rails(g);
  for (std::size_t j = 0; j < g; ++j) {
    for (const auto& node : nodes) {
      std::vector<VertexId> chain;
      for (std::size_t k = 0; k < node.size(); ++k) chain.push_back(node[(j + k) % node.size()]);
      rails[j].push_back(std::move(chain));
    }
  }
  return rails;
}

int tree_slice_cap(int max_slices, int steps) { return max_slices * std::max(1, steps - 1); }

namespace detail {

namespace {

// When each hop of slice c of one channel happens, in wavefront steps: the chain of a node
// reduces towards its head from step c (its tail) on, a head sends up once its chain and its
// children have, the root's result goes down one level per step and down every chain one
// position per step. Every dependency lies at an earlier step.
struct NodeTreeSteps {
  std::vector<int> up;    // [tree * N + node]: step (from c) at which the head sends up / the root has the sum
  std::vector<int> down;  // [tree * N + node]: step at which the head sends its result down
  int last = 0;           // the step of the last transfer of slice 0
};

NodeTreeSteps node_tree_steps(const std::vector<std::vector<VertexId>>& chains, const TreePair& trees) {
  const int n = static_cast<int>(chains.size());
  const auto un = static_cast<std::size_t>(n);
  NodeTreeSteps s;
  s.up.assign(2 * un, 0);
  s.down.assign(2 * un, 0);
  for (std::size_t t = 0; t < 2; ++t) {
    // Members by height, so that children come first.
    std::vector<int> order(un);
    for (int v = 0; v < n; ++v) order[static_cast<std::size_t>(v)] = v;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return trees.height[t][static_cast<std::size_t>(a)] < trees.height[t][static_cast<std::size_t>(b)];
    });
    for (int v : order) {
      int step = static_cast<int>(chains[static_cast<std::size_t>(v)].size()) - 1;
      for (int ch : trees.children[t][static_cast<std::size_t>(v)]) step = std::max(step, s.up[t * un + ch] + 1);
      s.up[t * un + static_cast<std::size_t>(v)] = step;
    }
    const int root = trees.root[t];
    for (int v = 0; v < n; ++v) {
      s.down[t * un + static_cast<std::size_t>(v)] =
          s.up[t * un + static_cast<std::size_t>(root)] + trees.depth[t][static_cast<std::size_t>(v)];
      const int chain_end = s.down[t * un + static_cast<std::size_t>(v)] +
                            static_cast<int>(chains[static_cast<std::size_t>(v)].size()) - 2;
      s.last = std::max({s.last, s.down[t * un + static_cast<std::size_t>(v)], chain_end});
    }
  }
  return s;
}

}  // namespace

int node_tree_steps(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  const auto rails = tree_rails(topology, ranks);
  int last = 0;
  for (const auto& chains : rails) {
    last = std::max(last, node_tree_steps(chains, tree_pair(static_cast<int>(chains.size()))).last);
  }
  return last + 1;
}

Pieces node_tree_pieces(const topo::Topology& topology, const CollectiveSpec& spec) {
  const auto rails = tree_rails(topology, spec.ranks);
  const double message = spec.bytes / (2.0 * static_cast<double>(rails.size()));
  const int cap = tree_slice_cap(spec.max_slices, node_tree_steps(topology, spec.ranks));
  return Pieces::of(slicing(message, spec.slice_bytes, cap, spec.step_ns), message);
}

PipelineDag node_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec, const Pieces& cut,
                                 FreeStarts starts) {
  const auto rails = tree_rails(topology, spec.ranks);
  const int n = static_cast<int>(rails[0].size());
  const auto un = static_cast<std::size_t>(n);
  const TreePair trees = tree_pair(n);
  const NodeTreeSteps steps = node_tree_steps(rails[0], trees);
  // The hops of every channel (tree t, rail r) and slice c, each at its wavefront step; emitted
  // in step order, which is the order the hops queue on a link they share.
  enum Kind { kChainUp, kHeadUp, kHeadDown, kChainDown };
  struct Item {
    int step, slot, tree, rail, slice, kind, node, pos, child;  // child: kHeadDown's child node, -1: own chain
    VertexId src, dst;
    std::uint32_t ends = 0;  // the pair's number in Ports, set by assign_step_slots
  };
  std::vector<Item> items;
  const int slices = cut.count;
  for (int t = 0; t < 2; ++t) {
    const auto tt = static_cast<std::size_t>(t);
    for (int r = 0; r < static_cast<int>(rails.size()); ++r) {
      const auto& chains = rails[static_cast<std::size_t>(r)];
      for (int c = 0; c < slices; ++c) {
        for (int v = 0; v < n; ++v) {
          const auto uv = static_cast<std::size_t>(v);
          const auto& chain = chains[uv];
          const int len = static_cast<int>(chain.size());
          for (int k = len - 1; k >= 1; --k) {
            const auto uk = static_cast<std::size_t>(k);
            items.push_back({c + len - 1 - k, 0, t, r, c, kChainUp, v, k, -1, chain[uk], chain[uk - 1]});
          }
          if (const int parent = trees.parent[tt][uv]; parent >= 0) {
            items.push_back({c + steps.up[tt * un + uv], 0, t, r, c, kHeadUp, v, 0, -1, chain[0],
                             chains[static_cast<std::size_t>(parent)][0]});
          }
          const int down = c + steps.down[tt * un + uv];
          for (int ch : trees.children[tt][uv]) {
            items.push_back({down, 0, t, r, c, kHeadDown, v, 0, ch, chain[0], chains[static_cast<std::size_t>(ch)][0]});
          }
          for (int k = 0; k + 1 < len; ++k) {
            const auto uk = static_cast<std::size_t>(k);
            items.push_back({down + k, 0, t, r, c, kChainDown, v, k, -1, chain[uk], chain[uk + 1]});
          }
        }
      }
    }
  }
  Ports ports(topology, spec.router);
  assign_step_slots(items, ports);
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.step, a.slot, a.tree, a.rail, a.slice, a.kind, a.node, a.pos, a.child) <
           std::tie(b.step, b.slot, b.tree, b.rail, b.slice, b.kind, b.node, b.pos, b.child);
  });
  // What reached each chain position of each slice: going up (the partial sum from below) and
  // down (the result); and each head's send to its parent.
  std::size_t g = 0;
  for (const auto& chain : rails[0]) g = std::max(g, chain.size());
  const auto slot = [&](const Item& it, int v, int k) {
    return (((static_cast<std::size_t>(it.tree) * rails.size() + static_cast<std::size_t>(it.rail)) *
                 static_cast<std::size_t>(slices) +
             static_cast<std::size_t>(it.slice)) *
                un +
            static_cast<std::size_t>(v)) *
               g +
           static_cast<std::size_t>(k);
  };
  constexpr TransferIndex kNone = 0xFFFFFFFF;
  const std::size_t total = 2 * rails.size() * static_cast<std::size_t>(slices) * un * g;
  std::vector<TransferIndex> up_in(total, kNone), down_in(total, kNone), head_up(total, kNone);
  Builder b(spec.alpha_ns);
  b.set_delays(Delays(spec.alpha_ns, cut, cut));
  b.set_free_starts(starts);
  const int rails_count = static_cast<int>(rails.size());
  std::vector<TransferIndex> after;  // the item's predecessors, reused
  for (const Item& it : items) {
    const auto tt = static_cast<std::size_t>(it.tree);
    after.clear();
    const auto add = [&] {
      return b.add_queued(it.src, it.dst, cut.bytes(it.slice), after, delay_role(cut, it.slice),
                          ports.links(ports.ends(it.ends)),
                          static_cast<std::uint32_t>(it.tree * rails_count + it.rail));
    };
    // The head's sum: its chain's and its children's.
    const auto gather_sum = [&](int v) {
      if (up_in[slot(it, v, 0)] != kNone) after.push_back(up_in[slot(it, v, 0)]);
      for (int ch : trees.children[tt][static_cast<std::size_t>(v)]) after.push_back(head_up[slot(it, ch, 0)]);
    };
    const auto result_at_head = [&](int v) {
      if (v == trees.root[tt]) {
        gather_sum(v);
      } else {
        after.push_back(down_in[slot(it, v, 0)]);
      }
    };
    switch (it.kind) {
      case kChainUp: {
        if (up_in[slot(it, it.node, it.pos)] != kNone) after.push_back(up_in[slot(it, it.node, it.pos)]);
        up_in[slot(it, it.node, it.pos - 1)] = add();
        break;
      }
      case kHeadUp: {
        gather_sum(it.node);
        head_up[slot(it, it.node, 0)] = add();
        break;
      }
      case kHeadDown: {
        result_at_head(it.node);
        down_in[slot(it, it.child, 0)] = add();
        break;
      }
      case kChainDown: {
        if (it.pos == 0) {
          result_at_head(it.node);
        } else {
          after.push_back(down_in[slot(it, it.node, it.pos)]);
        }
        down_in[slot(it, it.node, it.pos + 1)] = add();
        break;
      }
    }
  }
  return b.take_pipeline();
}

}  // namespace detail

TransferDag tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "double binary tree all-reduce");
  if (ranks_by_node(topology, spec.ranks).size() < 2) return double_binary_tree_all_reduce(spec);
  return detail::node_tree_all_reduce(topology, spec, detail::node_tree_pieces(topology, spec),
                                      detail::FreeStarts::kDrop)
      .dag;
}

}  // namespace fathom::coll
