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

// A ring's hop: its route's latency, the rate its message moves at alone on its links, and the
// rate it gets while every channel's message crosses them at once (its max-min share; the same
// for a single ring).
struct RingHop {
  std::int64_t latency_ns = 0;
  double bytes_per_s = 0;
  double shared_bytes_per_s = 0;
  bool operator==(const RingHop&) const = default;
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

  // K steps of a ring whose hop i (order[i] -> order[i+1]) is hops[i], every step a message of
  // `bytes` per hop cut as slices(bytes). Slice c of step k at hop i waits for slice c of step
  // k-1 from hop i-1 (the data it forwards) and for the hop's slice c-1; slice 0 waits for the
  // hop's previous message to have left (its finish less the hop's latency, Transfer::after_sent)
  // and then pays alpha and the latency. A slice that follows its own hop's previous slice or
  // message moves at the hop's shared rate (the hop is streaming, as every channel's same hop
  // is); one that waits for data from upstream, at its rate alone (a ring running on latency
  // does not keep its channels in step, so a GPU's channels send at different instants). The
  // longest path through that lattice, walked step by step on one period of the hops (the
  // smallest p dividing n with hops[i] = hops[i mod p]: the times of a ring whose hops repeat
  // with p repeat with it, as every rank starts at 0). So a step costs about alpha + its hop's
  // latency + its bytes: the latencies add up along the path a slice travels, not the slowest
  // one at every step, and a sliced ring pays them once. O(K p slices).
  double ring_lattice(const std::vector<RingHop>& hops, int steps, double bytes) const {
    const std::size_t n = hops.size();
    if (n < 2 || steps <= 0) return 0;
    std::size_t p = 1;
    while (n % p != 0 || !std::equal(hops.begin() + static_cast<std::ptrdiff_t>(p), hops.end(), hops.begin())) {
      ++p;  // hops[i] == hops[i - p] for every i >= p (and p divides n): period p
    }
    const Slicing cut = slicing(bytes, spec.slice_bytes, spec.max_slices, spec.step_ns);
    const auto slices = static_cast<std::size_t>(cut.count);
    // Each slice's cost after data (alone) and after its own hop (shared).
    std::vector<double> after_data(p * slices), after_own(p * slices);
    std::vector<double> previous(p * slices, 0.0), current(p * slices, 0.0);
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t c = 0; c < slices; ++c) {
        const std::int64_t fixed_ns = c == 0 ? spec.alpha_ns + hops[i].latency_ns : cut.delay_ns(static_cast<int>(c));
        const double fixed = static_cast<double>(fixed_ns) * 1e-9, part = bytes * cut.fraction(static_cast<int>(c));
        after_data[i * slices + c] = fixed + part / hops[i].bytes_per_s;
        after_own[i * slices + c] = fixed + part / hops[i].shared_bytes_per_s;
      }
    }
    for (int k = 0; k < steps; ++k) {
      for (std::size_t i = 0; i < p; ++i) {
        const std::size_t up = (i + p - 1) % p;
        const double latency = static_cast<double>(hops[i].latency_ns) * 1e-9;
        for (std::size_t c = 0; c < slices; ++c) {
          const std::size_t at = i * slices + c;
          // Own: the hop's previous slice, or its previous message once it has left; step 0's
          // first slices start together, every channel's at once.
          double own = 0;
          if (c > 0) {
            own = current[at - 1];
          } else if (k > 0) {
            own = previous[i * slices + slices - 1] - latency;
          }
          double finish = own + after_own[at];
          if (k > 0) finish = std::max(finish, previous[up * slices + c] + after_data[at]);
          current[at] = finish;
        }
      }
      std::swap(previous, current);
    }
    double makespan = 0;
    for (std::size_t i = 0; i < p; ++i) makespan = std::max(makespan, previous[i * slices + slices - 1]);
    return makespan;
  }

  // One channel: each hop's route.
  double ring(const std::vector<VertexId>& order, int steps, double step_bytes) const {
    std::vector<RingHop> hops;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const PathCost c = path_cost(topology, router, order[i], order[(i + 1) % order.size()]);
      hops.push_back({c.latency_ns, c.bytes_per_s, c.bytes_per_s});
    }
    return ring_lattice(hops, steps, step_bytes);
  }

  // A ring collective of `steps` steps of step_bytes (the whole group's bytes / n) over the
  // channels of ring_channels(). One channel: ring() above. C > 1 channels each carry
  // step_bytes / C per step and are rotations of one another, so each takes what channel 0
  // takes in ring_lattice(), a hop's shared rate being min_l (B_l / k_l) over its links, k_l how
  // many of the step's C x n hops cross link l (max-min among equal flows).
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
    std::vector<RingHop> first(channels[0].size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      double latency_ns = 0;
      double share = std::numeric_limits<double>::infinity(), alone = share;
      // Equal flows at rate r put r x fraction on each of their links: r <= B_l / load_l.
      hops[i].each([&](topo::LinkId l, double fraction) {
        const topo::Link& link = topology.link(l);
        latency_ns += fraction * static_cast<double>(link.latency_ns);
        share = std::min(share, link.bytes_per_s / flows[l]);
        alone = std::min(alone, link.bytes_per_s / fraction);
      });
      first[i] = {static_cast<std::int64_t>(std::llround(latency_ns)), alone, share};
    }
    return ring_lattice(first, steps, bytes);
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

double ring_steps_seconds(const topo::Topology& topology, topo::Router& router, const CollectiveSpec& spec, int steps) {
  const Costs c{topology, router, spec};
  return c.channel_rings(ring_channels(topology, spec.ranks), steps,
                         spec.bytes / static_cast<double>(spec.ranks.size()));
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
    const auto after = dag.after(static_cast<TransferIndex>(i));
    double last = 0;  // the last predecessor's finish
    for (TransferIndex p : after) last = std::max(last, finish[p]);
    PathCost path;
    path.latency_ns = t.pipelined ? 0 : routes[i].latency.ns();
    for (net::LinkId l : routes[i].route) path.bytes_per_s = std::min(path.bytes_per_s, topology.link(l).bytes_per_s);
    if (t.after_sent) {
      // The message before it on its connection has only to have left (TransferDag's header).
      double ready = finish[after[0]] - static_cast<double>(routes[after[0]].latency.ns()) * 1e-9;
      for (std::size_t k = 1; k < after.size(); ++k) ready = std::max(ready, finish[after[k]]);
      const double start = std::max(last, ready + static_cast<double>(t.alpha_ns + path.latency_ns) * 1e-9);
      finish[i] = start + t.bytes / path.bytes_per_s;
    } else {
      finish[i] = last + transfer_seconds(path, t.bytes, t.alpha_ns);
    }
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
