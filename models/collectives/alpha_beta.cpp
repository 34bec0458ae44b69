#include "models/collectives/alpha_beta.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/dag_builder.hpp"
#include "models/network/flow_transfer.hpp"

namespace fathom::coll {

namespace {

using topo::VertexId;

// One stage (hop) of a pipeline: slice 0 costs first (alpha + latency) + head, the middle
// slices body each and the last tail (its delay and bytes; Slicing says which is which).
struct Stage {
  double first = 0, head = 0, body = 0, tail = 0;
};

// Longest path through a pipeline of stages j = 0..h-1 carrying C slices, where slice c at stage
// j waits for slice c at stage j-1 and for slice c-1 at stage j. Rows: slice 0 (first + head),
// slices 1..C-2 (body), slice C-1 (tail; with C = 2 the second slice is a tail costing body). A
// path runs along slice 0 to stage J, through the middle rows from stage J to stage K (each stage
// once, and its other C - 3 middle cells on the slowest of them), and along the last slice from K:
//   C = 1:  T = sum_j (first_j + head_j);
//   C = 2:  T = max_J [ sum_{j<=J} (first_j + head_j) + sum_{j>=J} body_j ];
//   C >= 3: T = max_{J<=K} [ sum_{j<=J} (first_j + head_j) + sum_{J<=j<=K} body_j
//                            + (C - 3) max_{J<=j<=K} body_j + sum_{j>=K} tail_j ].
double pipeline(const std::vector<Stage>& stages, int slices) {
  const std::size_t h = stages.size();
  if (h == 0) return 0;
  std::vector<double> along_head(h);  // sum_{j<=J} (first + head)
  double sum = 0;
  for (std::size_t j = 0; j < h; ++j) along_head[j] = (sum += stages[j].first + stages[j].head);
  if (slices <= 1) return along_head[h - 1];
  double best = -std::numeric_limits<double>::infinity();
  if (slices == 2) {
    double rest = 0;
    for (std::size_t j = h; j-- > 0;) {
      rest += stages[j].body;
      best = std::max(best, along_head[j] + rest);
    }
    return best;
  }
  std::vector<double> tail_from(h + 1, 0.0);
  for (std::size_t j = h; j-- > 0;) tail_from[j] = tail_from[j + 1] + stages[j].tail;
  for (std::size_t J = 0; J < h; ++J) {
    double body_sum = 0, body_max = 0;
    for (std::size_t K = J; K < h; ++K) {
      body_sum += stages[K].body;
      body_max = std::max(body_max, stages[K].body);
      best = std::max(best, along_head[J] + body_sum + (slices - 3) * body_max + tail_from[K]);
    }
  }
  return best;
}

// The links a flow from src to dst loads and the part of its bytes on each: its one route (hash
// 0, the closed forms' idle-fabric picture), or under adaptive routing its spread over every
// shortest route (topo::Router::spread), as the simulated DAG routes it (net::route_one). A view
// of the router's cached route: valid until the router's routes are cleared.
class FlowLinks {
 public:
  FlowLinks(const topo::Topology& topology, topo::Router& router, VertexId src, VertexId dst) {
    if (topology.routing == topo::Routing::kAdaptive) {
      spread_ = &router.spread(src, dst);
    } else {
      route_ = &router.route(src, dst, 0);
    }
  }
  // f(link, fraction of the flow's bytes on it) for each link.
  template <typename F>
  void each(F&& f) const {
    if (spread_) {
      for (const topo::SpreadLink& s : *spread_) f(s.link, s.fraction);
    } else {
      for (topo::LinkId l : *route_) f(l, 1.0);
    }
  }

 private:
  const std::vector<topo::LinkId>* route_ = nullptr;
  const std::vector<topo::SpreadLink>* spread_ = nullptr;
};

struct Costs {
  const topo::Topology& topology;
  topo::Router& router;
  const CollectiveSpec& spec;

  // One whole message of m bytes from a to b, cut as slices(m): alpha + latency + m / B plus the
  // per-slice delays of its later slices.
  double d(VertexId a, VertexId b, double bytes) const {
    return transfer_seconds(path_cost(topology, router, a, b), bytes, spec.alpha_ns + extra_ns(bytes));
  }
  std::int64_t extra_ns(double message_bytes) const {
    return slicing(message_bytes, spec.slice_bytes, spec.max_slices, spec.step_ns).total_extra_ns();
  }
  // A pipeline stage carrying a message of `seconds` at the stage's bandwidth, cut as `cut`, with
  // `fixed` (alpha + latency) paid by slice 0: each slice pays its delay and its share of the bytes.
  static Stage stage(const Slicing& cut, double fixed, double seconds) {
    Stage s;
    s.first = fixed;
    s.head = seconds * cut.fraction(0);
    if (cut.count >= 2) s.body = static_cast<double>(cut.delay_ns(1)) * 1e-9 + seconds * cut.fraction(1);
    if (cut.count >= 3) {
      s.tail = static_cast<double>(cut.delay_ns(cut.count - 1)) * 1e-9 + seconds * cut.fraction(cut.count - 1);
    }
    return s;
  }
  // The stage-wise maximum (the slowest GPU of a symmetric phase).
  static void keep_max(Stage& into, const Stage& s) {
    into.first = std::max(into.first, s.first);
    into.head = std::max(into.head, s.head);
    into.body = std::max(into.body, s.body);
    into.tail = std::max(into.tail, s.tail);
  }

  // K steps of a ring. Every rank streams each step's message as back-to-back slices, and its
  // next step starts when its own send and the slice 0 it forwards have both arrived, so a step
  // costs one whole message on the slowest hop, whatever the slice count:
  // T = K * max_hop d(hop, step_bytes).
  double ring(const std::vector<VertexId>& order, int steps, double step_bytes) const {
    if (order.size() < 2 || steps <= 0) return 0;
    double slowest = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      slowest = std::max(slowest, d(order[i], order[(i + 1) % order.size()], step_bytes));
    }
    return steps * slowest;
  }

  // A ring collective of `steps` steps of step_bytes (the whole group's bytes / n) over the
  // channels of ring_channels(). One channel: ring() above. C > 1 channels each carry
  // step_bytes / C per step, all at once on an idle fabric, so a link that k of the C x n hops
  // of a step cross gives each of them B_l / k (max-min among equal flows), and a hop's message
  // costs alpha + lat + (step_bytes / C) / min_l (B_l / k_l). Each channel is a ring paced by
  // its slowest hop; the channels are rotations of one another, so they keep in step:
  // T = steps * max_channel max_hop [alpha + lat + step_bytes / (C min_l (B_l / k_l))].
  double channel_rings(const std::vector<std::vector<VertexId>>& channels, int steps, double step_bytes) const {
    if (channels.size() == 1) return ring(channels[0], steps, step_bytes);
    if (channels.empty() || channels[0].size() < 2 || steps <= 0) return 0;
    const double bytes = step_bytes / static_cast<double>(channels.size());
    // Every hop's links, routed once; the load of each link in flows (a spread flow counts the
    // part of its bytes that crosses it), by LinkId.
    std::vector<FlowLinks> hops;
    std::vector<double> flows(topology.links().size(), 0.0);
    for (const auto& order : channels) {
      for (std::size_t i = 0; i < order.size(); ++i) {
        hops.emplace_back(topology, router, order[i], order[(i + 1) % order.size()]);
        hops.back().each([&](topo::LinkId l, double fraction) { flows[l] += fraction; });
      }
    }
    const double fixed_ns = static_cast<double>(spec.alpha_ns + extra_ns(bytes));
    double slowest = 0;
    for (const FlowLinks& hop : hops) {
      double latency_ns = 0;
      double share = std::numeric_limits<double>::infinity();
      // Equal flows at rate r put r x fraction on each of their links: r <= B_l / load_l.
      hop.each([&](topo::LinkId l, double fraction) {
        const topo::Link& link = topology.link(l);
        latency_ns += fraction * static_cast<double>(link.latency_ns);
        share = std::min(share, link.bytes_per_s / flows[l]);
      });
      slowest = std::max(slowest, (fixed_ns + std::round(latency_ns)) * 1e-9 + bytes / share);
    }
    return steps * slowest;
  }

  // A chain order[0] -> order[1] -> ... carrying `bytes` in slices: a pipeline whose stages are
  // the hops.
  double chain(const std::vector<VertexId>& order, double bytes) const {
    if (order.size() < 2) return 0;
    const Slicing cut = slicing(bytes, spec.slice_bytes, chain_slice_cap(spec.max_slices, order.size()), spec.step_ns);
    std::vector<Stage> stages;
    for (std::size_t j = 0; j + 1 < order.size(); ++j) {
      const PathCost p = path_cost(topology, router, order[j], order[j + 1]);
      stages.push_back(stage(cut, static_cast<double>(spec.alpha_ns + p.latency_ns) * 1e-9, bytes / p.bytes_per_s));
    }
    return pipeline(stages, cut.count);
  }

  // A GPU's paths into and out of its NVSwitch plane.
  std::pair<PathCost, PathCost> switch_paths(VertexId gpu) const {
    VertexId plane = gpu;
    for (topo::LinkId l : topology.out_links(gpu)) {
      if (topology.vertex(topology.link(l).to).kind == topo::VertexKind::kNvSwitch) plane = topology.link(l).to;
    }
    return {path_cost(topology, router, gpu, plane), path_cost(topology, router, plane, gpu)};
  }

  // NVLS: a two-stage pipeline (all GPUs into the switch, then the switch out to all GPUs),
  // with a barrier per slice at the switch; the slice is nvls_slice_bytes per GPU of the plane.
  double nvls(const std::vector<VertexId>& gpus, double up_bytes, double down_bytes) const {
    const Slicing cut =
        slicing(std::max(up_bytes, down_bytes), spec.nvls_slice_bytes * static_cast<double>(gpus.size()),
                nvls_slice_cap(spec.max_slices, gpus.size()), spec.nvls_step_ns);
    std::vector<Stage> stages(2);
    for (VertexId g : gpus) {
      const auto [up, down] = switch_paths(g);
      keep_max(stages[0],
               stage(cut, static_cast<double>(spec.alpha_ns + up.latency_ns) * 1e-9, up_bytes / up.bytes_per_s));
      keep_max(stages[1],
               stage(cut, static_cast<double>(spec.alpha_ns + down.latency_ns) * 1e-9, down_bytes / down.bytes_per_s));
    }
    return pipeline(stages, cut.count);
  }
};

// A DAG reduced to what its critical path needs, its delays by role (detail::Delay): built once
// per shape, timed with any costs.
struct Skeleton {
  std::vector<std::pair<VertexId, VertexId>> pairs;  // distinct (src, dst)
  std::vector<std::uint32_t> pair;                   // by transfer
  std::vector<double> bytes;
  std::vector<std::uint8_t> role, pipelined;
  std::vector<std::uint32_t> begin, after;  // predecessors of i: after[begin[i] .. begin[i + 1])
};

Skeleton skeleton_of(const detail::PipelineDag& p) {
  Skeleton k;
  const std::size_t n = p.dag.size();
  k.pair.reserve(n);
  k.bytes.reserve(n);
  k.pipelined.reserve(n);
  k.begin.reserve(n + 1);
  k.begin.push_back(0);
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (TransferIndex i = 0; i < p.dag.size(); ++i) {
    const Transfer& t = p.dag[i];
    const std::uint64_t key = (static_cast<std::uint64_t>(t.src) << 32) | t.dst;
    auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(k.pairs.size()));
    if (fresh) k.pairs.emplace_back(t.src, t.dst);
    k.pair.push_back(it->second);
    k.bytes.push_back(t.bytes);
    k.pipelined.push_back(t.pipelined ? 1 : 0);
    k.after.insert(k.after.end(), p.dag.after(i).begin(), p.dag.after(i).end());
    k.begin.push_back(static_cast<std::uint32_t>(k.after.size()));
  }
  k.role = p.roles;
  return k;
}

// The longest path with every transfer at its uncontended cost on the route of ECMP hash 0
// (its role's delay, plus the route's latency unless pipelined, plus bytes over the route's
// slowest link): critical_path_seconds() on fathom's symmetric fabrics.
double critical_path(const Skeleton& k, const detail::Delays& delays, const topo::Topology& topology,
                     topo::Router& router) {
  std::vector<PathCost> cost;
  cost.reserve(k.pairs.size());
  for (const auto& [src, dst] : k.pairs) cost.push_back(path_cost(topology, router, src, dst));
  std::vector<double> finish(k.bytes.size(), 0.0);
  double makespan = 0;
  for (std::size_t i = 0; i < k.bytes.size(); ++i) {
    double start = 0;
    for (std::uint32_t a = k.begin[i]; a < k.begin[i + 1]; ++a) start = std::max(start, finish[k.after[a]]);
    const PathCost& path = cost[k.pair[i]];
    const std::int64_t fixed_ns = delays.ns[k.role[i]] + (k.pipelined[i] ? 0 : path.latency_ns);
    finish[i] = start + static_cast<double>(fixed_ns) * 1e-9 + k.bytes[i] / path.bytes_per_s;
    makespan = std::max(makespan, finish[i]);
  }
  return makespan;
}

}  // namespace

struct ClosedFormCache::Shapes {
  std::map<Shape, Skeleton> skeletons;
};
ClosedFormCache::ClosedFormCache() : shapes_(std::make_unique<Shapes>()) {}
ClosedFormCache::~ClosedFormCache() = default;
ClosedFormCache::ClosedFormCache(ClosedFormCache&&) noexcept = default;
ClosedFormCache& ClosedFormCache::operator=(ClosedFormCache&&) noexcept = default;
void ClosedFormCache::clear() { shapes_->skeletons.clear(); }

namespace {

// The critical path of a pipeline DAG of `count` slices, dag_for(c) building it with c slices
// of the same sizes and delays (the first, c - 2 middle ones, the last). Past its fill a
// pipeline repeats: after a transient, every sigma further middle slices add the same time
// (max-plus periodicity; sigma, the cyclicity, is 1 or 2 in practice). So where `count` is well
// beyond the pipeline's depth (`steps` wavefront steps), the path is found on c0, c0 + w and
// c0 + 2w slices (w = c0 / 2, a multiple of 12, so of any cyclicity up to 4 and of 6) and,
// when the two increments agree to 1e-9, extended linearly to `count`; else c0 doubles, and
// where no such c0 fits below `count` the whole DAG is walked. tests/models/collectives/tree_test.cpp
// checks it against the whole DAG's critical path. `shape` names the DAGs in `cache`.
double pipelined_critical_path(int count, int steps, const std::function<detail::PipelineDag(int)>& dag_for,
                               const detail::Delays& delays, const topo::Topology& topology, topo::Router& router,
                               ClosedFormCache* cache, ClosedFormCache::Shape shape) {
  const auto path = [&](int c) {
    if (!cache) return critical_path(skeleton_of(dag_for(c)), delays, topology, router);
    std::get<1>(shape) = c;
    auto& shapes = cache->shapes_->skeletons;
    auto it = shapes.find(shape);
    if (it == shapes.end()) it = shapes.emplace(shape, skeleton_of(dag_for(c))).first;
    return critical_path(it->second, delays, topology, router);
  };
  for (int c0 = 24 * ((4 * steps + 23) / 24); c0 + c0 < count; c0 *= 2) {
    const int w = c0 / 2;
    const double t0 = path(c0), t1 = path(c0 + w), t2 = path(c0 + 2 * w);
    const double rise = t1 - t0;
    if (std::abs((t2 - t1) - rise) <= 1e-9 * rise) return t2 + rise / w * (count - c0 - 2 * w);
  }
  return path(count);
}

// Direct all-to-all: all flows start together, so each link's load drains at its capacity
// and a flow ends when its most loaded link has: T = alpha + max_f (lat_f + max_{l in f}
// load_l / cap_l). Exact when the flows crossing a bottleneck have equal latency and are not
// held back elsewhere (symmetric groups on symmetric fabrics).
double all_to_all(const topo::Topology& topology, topo::Router& router, const CollectiveSpec& spec,
                  std::uint64_t seed) {
  const TransferDag dag = direct_all_to_all(spec);
  const auto routes = route_dag(topology, router, dag, seed);
  std::vector<double> load(topology.links().size(), 0.0);
  for (std::size_t i = 0; i < dag.size(); ++i) {
    for (net::LinkId l : routes[i].route) load[l] += dag[static_cast<TransferIndex>(i)].bytes;
  }
  double worst = 0;
  for (std::size_t i = 0; i < dag.size(); ++i) {
    double drain = 0;
    for (net::LinkId l : routes[i].route) drain = std::max(drain, load[l] / topology.link(l).bytes_per_s);
    worst = std::max(worst, routes[i].latency.to_seconds() + drain);
  }
  return dag.empty() ? 0 : static_cast<double>(spec.alpha_ns) * 1e-9 + worst;
}

}  // namespace

PathCost path_cost(const topo::Topology& topology, topo::Router& router, VertexId src, VertexId dst,
                   std::uint64_t flow_hash) {
  PathCost cost;
  if (topology.routing == topo::Routing::kAdaptive) {
    // Spread over every shortest route: a link that carries part f of the bytes limits the flow
    // to B / f; the latency is the bytes' mean, rounded to the ns as the simulation rounds it.
    double latency_ns = 0;
    for (const auto& s : router.spread(src, dst)) {
      latency_ns += s.fraction * static_cast<double>(topology.link(s.link).latency_ns);
      cost.bytes_per_s = std::min(cost.bytes_per_s, topology.link(s.link).bytes_per_s / s.fraction);
    }
    cost.latency_ns = std::llround(latency_ns);
    return cost;
  }
  for (topo::LinkId l : router.route(src, dst, flow_hash)) {
    cost.latency_ns += topology.link(l).latency_ns;
    cost.bytes_per_s = std::min(cost.bytes_per_s, topology.link(l).bytes_per_s);
  }
  return cost;
}

double transfer_seconds(const PathCost& path, double bytes, std::int64_t alpha_ns) {
  return static_cast<double>(alpha_ns + path.latency_ns) * 1e-9 + bytes / path.bytes_per_s;
}

ClosedFormCache::Shape ClosedFormCache::shape(Algorithm algorithm, const CollectiveSpec& spec) {
  return {
      static_cast<int>(algorithm), 0, spec.bytes, spec.slice_bytes, spec.nvls_slice_bytes, spec.max_slices, spec.ranks};
}

double alpha_beta_seconds(Op op, Algorithm algorithm, const topo::Topology& topology, topo::Router& router,
                          const CollectiveSpec& spec, std::uint64_t seed, bool check, ClosedFormCache* cache) {
  const auto shape = [](Algorithm a, const CollectiveSpec& s) { return ClosedFormCache::shape(a, s); };
  // Building the DAG unsliced validates the spec and rejects unsupported pairs with the builders'
  // messages, at a fraction of the cost of the sliced DAG (which only the tree needs).
  CollectiveSpec unsliced = spec;
  unsliced.slice_bytes = 0;
  unsliced.nvls_slice_bytes = 0;
  if (check) build_collective(op, algorithm, topology, unsliced);
  const auto dag = [&] { return build_collective(op, algorithm, topology, spec); };
  const Costs c{topology, router, spec};
  const auto& r = spec.ranks;
  const int n = static_cast<int>(r.size());
  const double s = spec.bytes;
  std::vector<VertexId> order;
  switch (op) {
    case Op::kAllReduce:
      switch (algorithm) {
        case Algorithm::kRing:
          return c.channel_rings(ring_channels(topology, r), 2 * (n - 1), s / n);
        case Algorithm::kHalvingDoubling: {
          // Step with partner distance d exchanges m = d/n of the buffer as streamed slices; a
          // step starts when the previous one has fully arrived: T = sum_steps max_i d(i, i^d, m).
          double t = 0;
          std::vector<int> distances;
          for (int dist = n / 2; dist >= 1; dist /= 2) distances.push_back(dist);
          for (int dist = 1; dist < n; dist *= 2) distances.push_back(dist);
          for (int dist : distances) {
            double slowest = 0;
            const double m = s * dist / n;
            for (int i = 0; i < n; ++i) slowest = std::max(slowest, c.d(r[i], r[i ^ dist], m));
            t += slowest;
          }
          return t;
        }
        case Algorithm::kDoubleBinaryTree: {
          // One node: NCCL's two trees over the ranks. Across nodes: chains and the trees over
          // the nodes, queued on the links at their ends: the DAG's critical path.
          if (ranks_by_node(topology, r).size() < 2) return critical_path_seconds(dag(), topology, router, seed);
          const detail::Pieces cut = detail::node_tree_pieces(topology, spec);
          return pipelined_critical_path(
              cut.count, detail::node_tree_steps(topology, r),
              [&](int count) {
                return detail::node_tree_all_reduce(topology, spec, count == cut.count ? cut : cut.with_count(count));
              },
              detail::Delays(spec.alpha_ns, cut, cut), topology, router, cache, shape(algorithm, spec));
        }
        case Algorithm::kNvlsTree: {
          const auto pieces = detail::nvls_tree_pieces(topology, spec);
          const detail::Pieces& nvls = pieces.first;
          const detail::Pieces& tree = pieces.second;
          return pipelined_critical_path(
              nvls.count, detail::nvls_tree_steps(static_cast<int>(ranks_by_node(topology, r).size())),
              [&](int count) {
                const bool same = count == nvls.count;
                return detail::nvls_tree_all_reduce(topology, spec, same ? nvls : nvls.with_count(count),
                                                    same ? tree : tree.with_count(count));
              },
              detail::Delays(spec.alpha_ns, nvls, tree), topology, router, cache, shape(algorithm, spec));
        }
        case Algorithm::kHierarchical: {
          // Three phases, each starting when the previous one has ended everywhere (the groups
          // are symmetric): intra-node, then per rail across nodes on a 1/g slice, then intra-node.
          const auto nodes = ranks_by_node(topology, r);
          const double g = static_cast<double>(nodes[0].size());
          const int node_count = static_cast<int>(nodes.size());
          double first = 0, middle = 0, last = 0;
          for (const auto& node : nodes) {
            first = std::max(first, c.ring(node, static_cast<int>(g) - 1, s / g));
            last = std::max(last, c.ring(node, static_cast<int>(g) - 1, s / g));
          }
          for (const auto& rail : rails_of(nodes)) {
            middle = std::max(middle, c.ring(rail, 2 * (node_count - 1), s / g / node_count));
          }
          return first + middle + last;
        }
        case Algorithm::kNvls:
          return c.nvls(r, s, s);
        case Algorithm::kDirect:
          break;
      }
      break;
    case Op::kReduceScatter:
    case Op::kAllGather:
      return c.channel_rings(ring_channels(topology, r), n - 1, s / n);
    case Op::kBroadcast:
      for (int j = 0; j < n; ++j) order.push_back(r[static_cast<std::size_t>((spec.root + j) % n)]);
      return c.chain(order, s);
    case Op::kReduce:
      for (int j = 1; j <= n; ++j) order.push_back(r[static_cast<std::size_t>((spec.root + j) % n)]);
      return c.chain(order, s);
    case Op::kAllToAll:
      return all_to_all(topology, router, spec, seed);
    case Op::kSendRecv: {
      // One transfer, or nccl-tests' shift (every rank to the next at once, each on its own links).
      double slowest = 0;
      // Unsliced, so no per-slice delays: d without them.
      for (int i = 0; i < (n == 2 ? 1 : n); ++i) {
        slowest =
            std::max(slowest, transfer_seconds(path_cost(topology, router, r[i], r[(i + 1) % n]), s, spec.alpha_ns));
      }
      return slowest;
    }
  }
  return critical_path_seconds(dag(), topology, router, seed);
}

double critical_path_seconds(const TransferDag& dag, const topo::Topology& topology, topo::Router& router,
                             std::uint64_t seed) {
  const auto routes = route_dag(topology, router, dag, seed);
  std::vector<double> finish(dag.size(), 0.0);
  double makespan = 0;
  for (std::size_t i = 0; i < dag.size(); ++i) {
    const Transfer& t = dag[static_cast<TransferIndex>(i)];
    double start = 0;
    for (TransferIndex p : dag.after(static_cast<TransferIndex>(i))) start = std::max(start, finish[p]);
    PathCost path;
    path.latency_ns = t.pipelined ? 0 : routes[i].latency.ns();
    for (net::LinkId l : routes[i].route) path.bytes_per_s = std::min(path.bytes_per_s, topology.link(l).bytes_per_s);
    finish[i] = start + transfer_seconds(path, t.bytes, t.alpha_ns);
    makespan = std::max(makespan, finish[i]);
  }
  return makespan;
}

double bus_bandwidth_bytes_per_s(Op op, int ranks, double bytes, double seconds) {
  const double n = ranks;
  double factor = 1;
  switch (op) {
    case Op::kAllReduce:
      factor = 2 * (n - 1) / n;
      break;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
      factor = (n - 1) / n;
      break;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kSendRecv:
      factor = 1;
      break;
  }
  return bytes / seconds * factor;
}

}  // namespace fathom::coll
