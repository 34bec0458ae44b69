#include "models/collectives/alpha_beta.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "models/network/flow_transfer.hpp"

namespace fathom::coll {

namespace {

using topo::VertexId;

struct Costs {
  const topo::Topology& topology;
  topo::Router& router;
  std::int64_t alpha_ns;

  double d(VertexId a, VertexId b, double bytes) const {
    return transfer_seconds(path_cost(topology, router, a, b), bytes, alpha_ns);
  }

  // K steps of a ring, each step's message in C pieces sent back to back: every rank sends
  // K*C pieces one after another, and the slowest hop sets the pace (each piece it forwards
  // has arrived before it is due), so T = K * C * max_hop d(hop, m / C).
  double ring(const std::vector<VertexId>& order, int steps, double step_bytes, int chunks) const {
    if (order.size() < 2 || steps <= 0) return 0;
    double slowest = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      slowest = std::max(slowest, d(order[i], order[(i + 1) % order.size()], step_bytes / chunks));
    }
    return steps * chunks * slowest;
  }

  // A pipelined chain of hops d_1..d_h carrying C pieces: the longest path through the
  // (hop, piece) grid visits every hop once and spends the other C-1 pieces on the slowest:
  // T = sum_j d_j + (C - 1) * max_j d_j.
  double chain(const std::vector<VertexId>& order, double bytes, int chunks) const {
    double sum = 0, slowest = 0;
    for (std::size_t j = 0; j + 1 < order.size(); ++j) {
      const double dj = d(order[j], order[j + 1], bytes / chunks);
      sum += dj;
      slowest = std::max(slowest, dj);
    }
    return sum + (chunks - 1) * slowest;
  }

  // NVLS: a two-stage pipeline (all GPUs into the switch, then the switch out to all GPUs),
  // with a barrier per piece at the switch: T = U + D + (C - 1) * max(U, D).
  double nvls(const std::vector<VertexId>& gpus, double up_bytes, double down_bytes, int chunks) const {
    double up = 0, down = 0;
    for (VertexId g : gpus) {
      VertexId plane = g;
      for (topo::LinkId l : topology.out_links(g)) {
        if (topology.vertex(topology.link(l).to).kind == topo::VertexKind::kNvSwitch) plane = topology.link(l).to;
      }
      up = std::max(up, d(g, plane, up_bytes / chunks));
      down = std::max(down, d(plane, g, down_bytes / chunks));
    }
    return up + down + (chunks - 1) * std::max(up, down);
  }
};

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
  for (topo::LinkId l : router.route(src, dst, flow_hash)) {
    cost.latency_ns += topology.link(l).latency_ns;
    cost.bytes_per_s = std::min(cost.bytes_per_s, topology.link(l).bytes_per_s);
  }
  return cost;
}

double transfer_seconds(const PathCost& path, double bytes, std::int64_t alpha_ns) {
  return static_cast<double>(alpha_ns + path.latency_ns) * 1e-9 + bytes / path.bytes_per_s;
}

double alpha_beta_seconds(Op op, Algorithm algorithm, const topo::Topology& topology, topo::Router& router,
                          const CollectiveSpec& spec, std::uint64_t seed) {
  // Building the DAG validates the spec and rejects unsupported pairs with the builders' messages.
  const TransferDag dag = build_collective(op, algorithm, topology, spec);
  const Costs c{topology, router, spec.alpha_ns};
  const auto& r = spec.ranks;
  const int n = static_cast<int>(r.size());
  const double s = spec.bytes;
  const int chunks = spec.chunks;
  std::vector<VertexId> order;
  switch (op) {
    case Op::kAllReduce:
      switch (algorithm) {
        case Algorithm::kRing:
          return c.ring(r, 2 * (n - 1), s / n, chunks);
        case Algorithm::kHalvingDoubling: {
          // Step with partner distance d exchanges d/n of the buffer, C pieces back to back; a
          // step starts when the previous one has fully arrived: T = sum_steps C * max_i d(i, i^d, m/C).
          double t = 0;
          std::vector<int> distances;
          for (int dist = n / 2; dist >= 1; dist /= 2) distances.push_back(dist);
          for (int dist = 1; dist < n; dist *= 2) distances.push_back(dist);
          for (int dist : distances) {
            double slowest = 0;
            const double m = s * dist / n / chunks;
            for (int i = 0; i < n; ++i) slowest = std::max(slowest, c.d(r[i], r[i ^ dist], m));
            t += chunks * slowest;
          }
          return t;
        }
        case Algorithm::kDoubleBinaryTree:
          return critical_path_seconds(dag, topology, router, seed);
        case Algorithm::kHierarchical:
        case Algorithm::kNvlsTree: {
          // Three phases, each starting when the previous one has ended everywhere (the groups
          // are symmetric): intra-node, then per rail across nodes on a 1/g slice, then intra-node.
          const auto nodes = ranks_by_node(topology, r);
          const double g = static_cast<double>(nodes[0].size());
          const int node_count = static_cast<int>(nodes.size());
          double first = 0, middle = 0, last = 0;
          for (const auto& node : nodes) {
            if (algorithm == Algorithm::kHierarchical) {
              first = std::max(first, c.ring(node, static_cast<int>(g) - 1, s / g, chunks));
              last = std::max(last, c.ring(node, static_cast<int>(g) - 1, s / g, chunks));
            } else {
              first = std::max(first, c.nvls(node, s, s / g, chunks));
              last = std::max(last, c.nvls(node, s / g, s, chunks));
            }
          }
          for (const auto& rail : rails_of(nodes)) {
            middle = std::max(middle, c.ring(rail, 2 * (node_count - 1), s / g / node_count, chunks));
          }
          return first + middle + last;
        }
        case Algorithm::kNvls:
          return c.nvls(r, s, s, chunks);
        case Algorithm::kDirect:
          break;
      }
      break;
    case Op::kReduceScatter:
    case Op::kAllGather:
      return c.ring(r, n - 1, s / n, chunks);
    case Op::kBroadcast:
      for (int j = 0; j < n; ++j) order.push_back(r[static_cast<std::size_t>((spec.root + j) % n)]);
      return c.chain(order, s, chunks);
    case Op::kReduce:
      for (int j = 1; j <= n; ++j) order.push_back(r[static_cast<std::size_t>((spec.root + j) % n)]);
      return c.chain(order, s, chunks);
    case Op::kAllToAll:
      return all_to_all(topology, router, spec, seed);
    case Op::kSendRecv:
      return c.d(r[0], r[1], s);
  }
  return critical_path_seconds(dag, topology, router, seed);
}

double critical_path_seconds(const TransferDag& dag, const topo::Topology& topology, topo::Router& router,
                             std::uint64_t seed) {
  const auto routes = route_dag(topology, router, dag, seed);
  std::vector<double> finish(dag.size(), 0.0);
  double makespan = 0;
  for (std::size_t i = 0; i < dag.size(); ++i) {
    const Transfer& t = dag[static_cast<TransferIndex>(i)];
    double start = 0;
    for (TransferIndex p : t.after) start = std::max(start, finish[p]);
    PathCost path;
    path.latency_ns = routes[i].latency.ns();
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
