// Router: shortest-path routing on a Topology: static ECMP by flow hash, static D-mod-K by
// destination, and the flow-level picture of adaptive routing (a flow spread over every
// shortest path).
//
// Assumptions (docs/topology.md, "Routing"):
//   - A route has the fewest links (hop count, not latency or bandwidth): every Clos fabric
//     fathom builds is wired so that fewest hops is what its switches' tables hold.
//   - ECMP: at each hop, among the out-links that bring the flow one hop closer to its
//     destination (in LinkId order), the flow takes index ecmp_mix(flow_hash, hop) % count.
//     A flow's route is a pure function of (src, dst, flow_hash): deterministic, and the same
//     for every thread, run and partitioning. Nothing reacts to load.
//   - D-mod-K (Topology::routing == Routing::kDestination), InfiniBand's static fat-tree
//     routing: the flow hash is ignored and the destination's index d (destination_index())
//     picks every branch. d numbers the fabric's host ports: leaf index x H + port on the leaf,
//     leaves being the tier-1 switches in the order they were built, ports a leaf's endpoint
//     in-links in LinkId order, H the most host ports any leaf has; a GPU takes its NIC's d.
//     Going up from a switch of tier l the flow takes candidate floor(d / W(l)) mod count,
//     W(l) = the product of the up-port counts of tiers 1 .. l-1 (1 at the leaves); going down
//     from tier l, floor(d / W(l - 1)) mod count (only parallel cables give a choice there).
//     On a non-blocking fat-tree a shift permutation then puts at most one flow on every link.
//   - Adaptive (Topology::routing == Routing::kAdaptive): a switch sends each packet out of the
//     least-loaded of its equal-cost ports. At flow level, on the symmetric Clos fabrics built
//     here, that is a flow split evenly over its candidates at every hop: spread() gives every
//     link of every shortest route with the fraction of the flow's bytes that crosses it (1 /
//     candidates at the first hop, the fractions reaching a vertex split evenly again at the
//     next). It is also the limit of ECMP with infinitely many flows of equal size. route()
//     stays the ECMP route: the path a single-path caller (a closed form, a latency) takes.
//   - Only switches, NVSwitch planes and NICs forward. A GPU, CPU or storage endpoint is only
//     ever the first or last vertex of a route, and a NIC never turns a flow from one PCIe
//     link onto another (two GPUs sharing a NIC talk over NVLink, not through the NIC).
//
// Cost: a destination's distances are composed from the tables of the few vertices a route to it
// must come through. A route ends over one of the destination's in-links, so
// dist(x, d) = 1 + min over in-links a->d of dist(x, a), a reached in a state that may take the
// link (not over PCIe, if a->d is PCIe). A destination with at most two in-links (a GPU: its
// NVSwitch plane and its NIC) is split that way, and so is each of those that has at most two
// itself (a NIC, reached from the fabric only through its leaf), three levels deep at most; what
// is left gets a distance table (2 x 16 bits per vertex) of its own. So the 16,384 GPUs of a
// 2,048-node cluster share their 256 leaves' tables, plus one small table per NVSwitch plane,
// instead of needing a table each. Router::Tables::kPerDestination gives every destination its
// own table: the reference the composition is tested against. Tables are built by a BFS on
// demand, run only as far as the sources asked about so far (a route inside a node explores the
// node), and kept, least recently used first out, within a memory budget. route() caches routes
// per (src, dst, flow_hash) (route_into() does not), spreads per (src, dst). A Router is not
// thread-safe (one per thread). It copies the adjacency when constructed, so links added to the
// Topology later are not seen (build a new Router); the Topology must outlive it (error messages
// read its names).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "topologies/topology.hpp"

namespace fathom::topo {

// The ECMP choice at hop `hop` (0 = the source's out-link): SplitMix64's finaliser over the
// flow hash and the hop, so the choices at successive hops are independent.
std::uint64_t ecmp_mix(std::uint64_t flow_hash, std::uint32_t hop);

// Whether a vertex of this kind forwards traffic that is neither from nor to it.
bool forwards(VertexKind kind);

// One link of a spread route and the fraction of the flow's bytes that crosses it.
struct SpreadLink {
  LinkId link = 0;
  double fraction = 1;
};

class Router {
 public:
  static constexpr std::size_t kDefaultTableBudgetBytes = std::size_t{256} << 20;

  // How destinations get their distances (see "Cost" above); both give the same routes.
  enum class Tables {
    kComposed,        // from the tables of the vertices every route to them comes through
    kPerDestination,  // a table of their own each
  };

  explicit Router(const Topology& topology, std::size_t table_budget_bytes = kDefaultTableBudgetBytes,
                  Tables tables = Tables::kComposed);

  // The links of the route from src to dst for a flow hashing to flow_hash; empty if
  // src == dst. Throws std::invalid_argument naming both vertices if dst cannot be reached
  // (or a vertex id does not exist). The reference stays valid until clear_routes() or the
  // Router's end.
  const std::vector<LinkId>& route(VertexId src, VertexId dst, std::uint64_t flow_hash);
  // The same, for a route that is one leg of a longer one: with destination routing the branches
  // are picked by `destination_key`, the final destination's destination_index() (in the
  // topology that holds it), instead of dst's. Routes are cached per (src, dst, key).
  const std::vector<LinkId>& route(VertexId src, VertexId dst, std::uint64_t flow_hash, std::uint64_t destination_key);
  // The same route as route(src, dst, flow_hash), written into `out` (replacing its contents)
  // without keeping it: for a caller that routes each of millions of flows once (a flow set,
  // whose every flow has its own hash), where the cache would only grow.
  void route_into(VertexId src, VertexId dst, std::uint64_t flow_hash, std::vector<LinkId>& out);

  // Every link of every shortest route from src to dst, each with the fraction of a flow's bytes
  // that crosses it when the flow is split evenly over the candidates at every hop (adaptive
  // routing's flow-level picture; the routing mode is not read). In hop order, then LinkId order;
  // the fractions of one hop sum to 1. Empty if src == dst; throws like route(). The reference
  // stays valid until clear_routes() or the Router's end.
  const std::vector<SpreadLink>& spread(VertexId src, VertexId dst);

  // The index that D-mod-K routing reads for routes ending at v: a host's fabric port index
  // (leaf x H + port), for an endpoint behind a host (a GPU) its first host's, for anything
  // else (a switch) v itself. Throws std::invalid_argument for an unknown vertex.
  std::uint64_t destination_index(VertexId v) const;

  // The ECMP candidates of a flow's first hop from src towards dst, in LinkId order: every
  // out-link of src that starts a shortest route. Empty if src == dst; throws like route().
  std::vector<LinkId> next_links(VertexId src, VertexId dst);

  // Links on a shortest route from src to dst; std::nullopt if there is none.
  std::optional<std::uint32_t> hop_count(VertexId src, VertexId dst);

  void clear_routes() {
    routes_.clear();
    spreads_.clear();
  }
  std::size_t cached_routes() const { return routes_.size(); }
  std::size_t distance_tables() const { return tables_.size(); }

 private:
  static constexpr std::uint16_t kNoPath16 = 0xFFFF;
  static constexpr std::uint32_t kNoPath = 0xFFFFFFFF;

  // A reverse BFS from one vertex, run only as far as the queries so far needed: a route from
  // a vertex D hops away needs every distance below D, which the BFS has all set once it has
  // reached that vertex. A route inside a node leaves the rest of the fabric unexplored.
  struct Table {
    // dist[2 * v + p]: hops from v to the table's vertex for a flow that reached v over a
    // PCIe link (p = 1) or not (p = 0), arriving there in one of the states it was keyed with
    // (table_key); kNoPath16 if none, or not reached yet.
    std::vector<std::uint16_t> dist;
    // The BFS so far: every state given a distance, in order; queue[head..] still to expand.
    // Released once the BFS is complete, unless it is small (is_small()).
    std::vector<std::uint32_t> queue;
    std::size_t head = 0;
    bool complete = false;
    VertexId key = 0;
    std::uint64_t last_used = 0;
    std::uint64_t pinned = 0;  // the target() that uses it: not recycled while it runs
    std::size_t bytes() const {
      return dist.capacity() * sizeof(std::uint16_t) + queue.capacity() * sizeof(std::uint32_t);
    }
  };
  // One way into a destination: `offset` hops after reaching `vertex` in one of `states`, the
  // hops before from `table` (null: only a route already at `vertex`, which then needs none).
  struct Term {
    Table* table = nullptr;
    VertexId vertex = 0;
    std::uint8_t states = 3;
    std::uint32_t offset = 0;
  };
  static constexpr std::size_t kMaxTerms = 8;
  // Distances to one destination: the least over its terms.
  struct Target {
    VertexId dst = 0;
    std::array<Term, kMaxTerms> terms;
    std::size_t count = 0;
    std::uint32_t distance(VertexId v, bool via_pcie) const;
  };
  struct RouteKey {
    VertexId src;
    VertexId dst;
    std::uint64_t flow_hash;
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    std::size_t operator()(const RouteKey& k) const;
  };

  void check(VertexId src, VertexId dst) const;
  // The route itself (route()'s and route_into()'s): hop by hop down the distance table.
  void walk(VertexId src, VertexId dst, std::uint64_t flow_hash, std::uint64_t destination_key,
            std::vector<LinkId>& path);
  // dst's terms, their tables' BFS run far enough for routes from src.
  Target target(VertexId src, VertexId dst);
  // Adds the terms of the routes that end at v in one of `states` after `offset` more hops,
  // leaving `reserve` of the target's slots free for the terms still to come.
  void compose(Target& t, VertexId v, std::uint8_t states, std::uint32_t offset, int depth, std::size_t reserve);
  Table& table_for(VertexId key, std::uint8_t states);
  // A table whose BFS has set fewer than 1 / kSmallShare of the states (stopped early, or found
  // no more to reach).
  static constexpr std::size_t kSmallShare = 64;
  bool is_small(const Table& table) const;
  void start_bfs(Table& table, VertexId key, std::uint8_t states);
  // Runs the BFS until `state` has its distance, or nothing is left to expand.
  void reach(Table& table, std::uint32_t state);
  // Appends to out the indices in out_arcs_ of the out-links of `at` that start a shortest
  // continuation, in LinkId order.
  void candidates(const Target& t, VertexId at, bool via_pcie, std::uint32_t dist,
                  std::vector<std::uint32_t>& out) const;
  [[noreturn]] void unreachable(VertexId src, VertexId dst) const;
  void number_destinations();
  // D-mod-K: what the destination index is divided by before `mod count` at `at`, the next hop
  // being `next` (either candidate: they all lead up, or all down).
  std::uint64_t dmodk_divisor(VertexId at, VertexId next) const;

  const Topology& topo_;
  std::size_t table_budget_bytes_;
  Tables sharing_;
  std::uint64_t clock_ = 0;
  std::uint64_t target_epoch_ = 0;  // target() calls so far (Table::pinned)
  // By table_key(vertex, states).
  static std::uint64_t table_key(VertexId v, std::uint8_t states) { return (std::uint64_t{v} << 2) | states; }
  std::unordered_map<std::uint64_t, Table> tables_;
  std::size_t table_bytes_held_ = 0;  // Table::bytes() summed over tables_
  // Tables in order of creation, to find the oldest small one (is_small) to recycle; a key may
  // be stale (its table evicted, recreated or grown), and is then skipped.
  std::deque<std::uint64_t> small_tables_;
  // The queue of the last BFS that ran to the end, kept for the next one's.
  std::vector<std::uint32_t> spare_queue_;
  std::unordered_map<RouteKey, std::vector<LinkId>, RouteKeyHash> routes_;
  std::unordered_map<RouteKey, std::vector<SpreadLink>, RouteKeyHash> spreads_;  // flow_hash 0
  // spread()'s scratch: (BFS state, fraction) at the current hop and the next.
  std::vector<std::pair<std::uint32_t, double>> frontier_, next_frontier_;
  // A compact copy of the topology's adjacency, built once: the BFS and the walks touch
  // only these arrays, not the Link and Vertex records with their names.
  struct Arc {
    VertexId other;  // the far end: link.to for an out-arc, link.from for an in-arc
    LinkId link;
    bool pcie;
  };
  std::vector<std::uint32_t> out_begin_;  // arcs of v: [begin[v], begin[v + 1]), in LinkId order
  std::vector<Arc> out_arcs_;
  std::vector<std::uint32_t> in_begin_;
  std::vector<Arc> in_arcs_;
  std::vector<std::uint8_t> forwards_;            // per vertex: forwards(kind)
  std::vector<std::uint8_t> pcie_in_;             // per vertex: has a PCIe in-link (can be in state 1)
  std::vector<std::int32_t> tier_;                // per vertex: a switch's tier, -1 for anything else
  std::vector<std::uint64_t> tier_divisor_;       // [l]: W(l) of D-mod-K, the product of up ports of tiers < l
  std::vector<std::uint64_t> destination_index_;  // per vertex: destination_index()
  std::vector<std::uint32_t> scratch_;            // candidate arcs, reused
};

}  // namespace fathom::topo
