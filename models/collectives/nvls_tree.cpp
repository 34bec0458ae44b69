// The NVLS-tree all-reduce (algorithms.hpp): in-switch reduce-scatter in every node, the
// double binary tree over the nodes on every rail, in-switch all-gather; pipelined by slices.
#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::Delays;
using detail::PipelineDag;
using detail::Ports;
using topo::VertexId;

namespace detail {

namespace {

// Wavefront steps of slice p (from p): the reduce-scatter into the switch at 0 and out of it at
// 1; a node's GPU j sends its part up tree t at 2 + its height, the root has the sum at
// 2 + the tree's height and every level below gets it one step later; a GPU puts the result
// into the switch once both trees have given it theirs, and the switch multicasts it a step on.
struct NvlsTreeSteps {
  std::vector<int> up;      // [tree * N + node]
  std::vector<int> down;    // [tree * N + node]: the step at which the node sends the result down
  std::vector<int> gather;  // [node]: all-gather into the switch
  int last = 0;
};

NvlsTreeSteps nvls_tree_steps(int n, const TreePair& trees) {
  const auto un = static_cast<std::size_t>(n);
  NvlsTreeSteps s;
  s.up.assign(2 * un, 0);
  s.down.assign(2 * un, 0);
  s.gather.assign(un, 2);
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t v = 0; v < un; ++v) {
      s.up[t * un + v] = 2 + trees.height[t][v];
      s.down[t * un + v] = 2 + trees.tree_height[t] + trees.depth[t][v];
      s.gather[v] = std::max(s.gather[v], s.down[t * un + v]);
    }
  }
  for (int g : s.gather) s.last = std::max(s.last, g + 1);
  return s;
}

}  // namespace

int nvls_tree_steps(int nodes) { return nvls_tree_steps(nodes, tree_pair(nodes)).last + 1; }

std::pair<Pieces, Pieces> nvls_tree_pieces(const topo::Topology& topology, const CollectiveSpec& spec) {
  const auto nodes = ranks_by_node(topology, spec.ranks);
  const double slice = spec.nvls_slice_bytes * static_cast<double>(nodes[0].size());
  const int cap = tree_slice_cap(spec.max_slices, nvls_tree_steps(static_cast<int>(nodes.size())));
  // The same slices; the NVLS phases pay nvls_step per later slice, the trees step.
  return {Pieces::of(slicing(spec.bytes, slice, cap, spec.nvls_step_ns), spec.bytes),
          Pieces::of(slicing(spec.bytes, slice, cap, spec.step_ns), spec.bytes)};
}

PipelineDag nvls_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec, const Pieces& nvls,
                                 const Pieces& tree, FreeStarts starts) {
  const auto nodes = by_node(topology, spec.ranks, "NVLS-tree all-reduce");
  const std::size_t g = nodes[0].size();
  const int n = static_cast<int>(nodes.size());
  const auto un = static_cast<std::size_t>(n);
  std::vector<VertexId> planes;
  for (const auto& node : nodes) planes.push_back(common_plane(topology, node, "NVLS-tree all-reduce"));
  const TreePair trees = tree_pair(n);
  const NvlsTreeSteps steps = nvls_tree_steps(n, trees);
  enum Kind { kScatterIn, kScatterOut, kUp, kDown, kGatherIn, kGatherOut };
  struct Item {
    int step, slot, kind, tree, slice, node, gpu, child;
    VertexId src, dst;
    std::uint32_t ends = 0;  // the pair's number in Ports, set by assign_step_slots
  };
  std::vector<Item> items;
  const int slices = nvls.count;
  for (int p = 0; p < slices; ++p) {
    for (int v = 0; v < n; ++v) {
      const auto uv = static_cast<std::size_t>(v);
      for (int j = 0; j < static_cast<int>(g); ++j) {
        const VertexId gpu = nodes[uv][static_cast<std::size_t>(j)];
        items.push_back({p, 0, kScatterIn, 0, p, v, j, -1, gpu, planes[uv]});
        items.push_back({p + 1, 0, kScatterOut, 0, p, v, j, -1, planes[uv], gpu});
        for (int t = 0; t < 2; ++t) {
          const auto tt = static_cast<std::size_t>(t);
          if (const int parent = trees.parent[tt][uv]; parent >= 0) {
            items.push_back({p + steps.up[tt * un + uv], 0, kUp, t, p, v, j, -1, gpu,
                             nodes[static_cast<std::size_t>(parent)][static_cast<std::size_t>(j)]});
          }
          for (int ch : trees.children[tt][uv]) {
            items.push_back({p + steps.down[tt * un + uv], 0, kDown, t, p, v, j, ch, gpu,
                             nodes[static_cast<std::size_t>(ch)][static_cast<std::size_t>(j)]});
          }
        }
        items.push_back({p + steps.gather[uv], 0, kGatherIn, 0, p, v, j, -1, gpu, planes[uv]});
        items.push_back({p + steps.gather[uv] + 1, 0, kGatherOut, 0, p, v, j, -1, planes[uv], gpu});
      }
    }
  }
  Ports ports(topology, spec.router);
  assign_step_slots(items, ports);
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.step, a.slot, a.kind, a.tree, a.slice, a.node, a.gpu, a.child) <
           std::tie(b.step, b.slot, b.kind, b.tree, b.slice, b.node, b.gpu, b.child);
  });
  // Per slice, node and GPU: the reduce-scatter's output, each tree's send up and receipt from
  // above, and the all-gather's inputs (all GPUs of a node).
  const auto at = [&](int p, int v, int j) {
    return (static_cast<std::size_t>(p) * un + static_cast<std::size_t>(v)) * g + static_cast<std::size_t>(j);
  };
  const std::size_t total = static_cast<std::size_t>(slices) * un * g;
  std::vector<TransferIndex> scattered(total), gathered(total);
  std::vector<std::vector<TransferIndex>> up(2, std::vector<TransferIndex>(total)),
      down(2, std::vector<TransferIndex>(total));
  std::vector<TransferIndex> scatter_in(total);  // each GPU's reduce-scatter input
  Builder b(spec.alpha_ns);
  b.set_delays(Delays(spec.alpha_ns, nvls, tree));
  b.set_free_starts(starts);
  std::vector<TransferIndex> after;  // the item's predecessors, reused
  for (const Item& it : items) {
    const auto uv = static_cast<std::size_t>(it.node);
    const auto tt = static_cast<std::size_t>(it.tree);
    const double piece = nvls.bytes(it.slice);  // per GPU into (reduce-scatter) or out of (all-gather) the switch
    const double part = piece / static_cast<double>(g);
    after.clear();
    const auto add = [&](double bytes, const Pieces& cut) {
      // One connection per phase (and per tree), as NCCL's NVLS-tree channels each hold theirs.
      const int phase = it.kind == kUp || it.kind == kDown ? kUp + it.tree : it.kind;
      return b.add_queued(it.src, it.dst, bytes, after, delay_role(cut, it.slice, &cut == &tree),
                          ports.links(ports.ends(it.ends)), static_cast<std::uint32_t>(phase));
    };
    // The sum of tree t at this GPU: once its children's parts and its own have arrived.
    const auto gather_sum = [&](std::size_t t) {
      after.push_back(scattered[at(it.slice, it.node, it.gpu)]);
      for (int ch : trees.children[t][uv]) after.push_back(up[t][at(it.slice, ch, it.gpu)]);
    };
    const auto result = [&](std::size_t t) {
      if (it.node == trees.root[t]) {
        gather_sum(t);
      } else {
        after.push_back(down[t][at(it.slice, it.node, it.gpu)]);
      }
    };
    const std::size_t here = at(it.slice, it.node, it.gpu);
    switch (it.kind) {
      case kScatterIn:
        scatter_in[here] = add(piece, nvls);
        break;
      case kScatterOut:
        after.assign(scatter_in.begin() + static_cast<std::ptrdiff_t>(at(it.slice, it.node, 0)),
                     scatter_in.begin() + static_cast<std::ptrdiff_t>(at(it.slice, it.node, 0) + g));
        scattered[here] = add(part, nvls);
        break;
      case kUp: {
        gather_sum(tt);
        up[tt][here] = add(part / 2, tree);
        break;
      }
      case kDown: {
        result(tt);
        down[tt][at(it.slice, it.child, it.gpu)] = add(part / 2, tree);
        break;
      }
      case kGatherIn:
        result(0);
        result(1);
        gathered[here] = add(part, nvls);
        break;
      case kGatherOut:
        for (std::size_t j = 0; j < g; ++j) after.push_back(gathered[at(it.slice, it.node, static_cast<int>(j))]);
        add(piece, nvls);
        break;
    }
  }
  return b.take_pipeline();
}

}  // namespace detail

TransferDag nvls_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  detail::validate(spec, "NVLS-tree all-reduce");
  const auto pieces = detail::nvls_tree_pieces(topology, spec);
  return detail::nvls_tree_all_reduce(topology, spec, pieces.first, pieces.second, detail::FreeStarts::kDrop).dag;
}

}  // namespace fathom::coll
