// Alpha-beta closed forms: what each collective algorithm (algorithms.hpp) costs on a fabric
// where nothing else runs.
//
// A message of m bytes from a to b costs d(a, b, m) = alpha + lat(a, b) + m / B(a, b): the
// per-step software cost alpha (CollectiveSpec::alpha_ns), the route's latency (sum of its
// links' latencies) and the bytes at the route's bottleneck bandwidth (its slowest link).
// Cutting it into slices that stream back to back does not change d; it lets the next stage of
// a pipeline (chain, NVLS) start after the first slice. Each algorithm's formula
// (docs/collectives.md derives them) combines these per step; the
// simulated DAG must reproduce it whenever the algorithm's own flows do not share a link
// (multi-channel rings: whenever the flows sharing a link are the channels' equal, concurrent
// ones, which then get equal shares), which is what tests/models/collectives/ checks. Routes are those of the Router
// with ECMP hash 0: in the symmetric Clos fabrics fathom builds every equal-cost path has the same latency and
// bottleneck, so the choice does not change d.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

struct PathCost {
  std::int64_t latency_ns = 0;                                   // sum over the route's links
  double bytes_per_s = std::numeric_limits<double>::infinity();  // slowest link (infinite for an empty route)
};

// The route of a flow hashing to flow_hash; under adaptive routing the flow's spread over every
// shortest route instead (the slowest link at the part of the bytes it carries, B / f; the
// bytes' mean latency), as the simulated DAG routes it.
PathCost path_cost(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                   std::uint64_t flow_hash = 0);

// d = alpha + latency + bytes / bandwidth, in seconds.
double transfer_seconds(const PathCost& path, double bytes, std::int64_t alpha_ns);

// The closed forms of the trees across nodes walk their DAGs (alpha_beta_seconds); a caller that evaluates the
// same collectives under many costs (a fit: other alphas, steps, link rates) keeps the DAGs'
// shapes here, built once per (algorithm, slices, bytes, slicing, ranks): their shape does not
// depend on the costs. Not thread-safe.
class ClosedFormCache {
 public:
  // (algorithm, DAG slices, bytes, slice_bytes, nvls_slice_bytes, max_slices, ranks)
  using Shape = std::tuple<int, int, double, double, double, int, std::vector<topo::VertexId>>;
  static Shape shape(Algorithm algorithm, const CollectiveSpec& spec);
  ClosedFormCache();
  ~ClosedFormCache();
  ClosedFormCache(ClosedFormCache&&) noexcept;
  ClosedFormCache& operator=(ClosedFormCache&&) noexcept;
  void clear();

  struct Shapes;
  std::unique_ptr<Shapes> shapes_;
};

// The closed form of (op, algorithm) for `spec` on `topology`. `seed` matters only for the
// direct all-to-all, whose formula reads the link loads of the routes the simulation uses.
// For the double binary tree and NVLS-tree the "closed form" is the DAG's critical path (below):
// their pipelined trees interleave, and their streams take turns on the links they share, in a
// way no short formula captures. Across nodes it is walked on the hash-0 routes, and a message of
// many slices on three shorter DAGs extended by the pipeline's period (docs/collectives.md,
// "Trees across nodes"); `cache` keeps those DAGs' shapes between calls. Throws like
// build_collective() for an unsupported pair.
// `check` false skips the validation (an unsliced build of the DAG) for a caller that has
// validated the same op, algorithm and ranks already: it is most of the cost on large groups.
double alpha_beta_seconds(Op op, Algorithm algorithm, const topo::Topology& topology, topo::Router& router,
                          const CollectiveSpec& spec, std::uint64_t seed = 0, bool check = true,
                          ClosedFormCache* cache = nullptr);

// The closed form of the first `steps` steps of a ring all-reduce, reduce-scatter or all-gather
// over spec.ranks (ring_channels(), each step a message of spec.bytes / n per hop): the ring's
// lattice (docs/collectives.md), which alpha_beta_seconds() gives for the whole. For timing a
// ring by its prefix (step_period.hpp).
double ring_steps_seconds(const topo::Topology& topology, topo::Router& router, const CollectiveSpec& spec, int steps);

// The longest path through the DAG when every transfer costs its uncontended d (no route
// latency for a pipelined one; an after_sent one released as TransferDag's header says; routes
// with the ECMP hash of (seed, index), as run_dag() uses). A lower bound on
// run_dag()'s makespan (up to its rounding of each transfer up to whole ns), equal to it when no two of the DAG's
// transfers share a link at the same time.
double critical_path_seconds(const TransferDag& dag, const topo::Topology& topology, topo::Router& router,
                             std::uint64_t seed);

// NCCL's bus bandwidth: algorithm bandwidth bytes / seconds times the factor that makes it
// comparable to a link's speed (all-reduce 2(n-1)/n; reduce-scatter, all-gather and
// all-to-all (n-1)/n; broadcast, reduce and send/recv 1).
double bus_bandwidth_bytes_per_s(Op op, int ranks, double bytes, double seconds);

}  // namespace fathom::coll
