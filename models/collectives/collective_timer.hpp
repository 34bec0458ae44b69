// CollectiveTimer: how long a collective takes on a cluster, NCCL-like. It picks the
// algorithm and protocol as NCCL's tuner does (nccl_tuner.hpp; or by the thresholds of
// choose_algorithm with `tuner: thresholds`) unless told, builds the algorithm's transfer DAG
// (algorithms.hpp) with the slicing and step cost of CollectiveParams, runs it over the
// flow-level network of the cluster with link capacities scaled by the algorithm's efficiency
// (collective_params.hpp), and adds the launch cost. `fathom nccl-tests` and the training
// model both time collectives through it; docs/collectives.md ("Timing a collective")
// describes it.
//
// The scaled topologies are copies of the plain one with other capacities, so their vertex and
// link ids are the plain topology's: ranks named on topology() run unchanged on every copy. Results are
// memoized per (op, algorithm, bytes, ranks) and are a pure function of the constructor's
// arguments and the call, so the same calls give the same answers in any order. Not
// thread-safe (it caches and routes): one timer per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/alpha_beta.hpp"
#include "models/collectives/collective_params.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

struct CollectiveTiming {
  double seconds = 0;  // launch + makespan
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;  // the tuner's, or forced (CollectiveParams::protocol); NVLS: Simple
  std::string_view reason;                // why this algorithm: the tuner's reason, or "set by caller"
};

// The fraction of NVLink rate `algorithm` reaches (AlgorithmEfficiency: nvls for NVLS and
// NVLS-tree, tree for the double binary tree, ring for the rest).
double nvlink_efficiency(Algorithm algorithm, const AlgorithmEfficiency& efficiency);

// Sets the rates of `into` (a copy of `plain`, the same links) to plain's with NVLink at
// nvlink_fraction and PCIe, NIC and fabric links at nic_fraction: the cluster built with those
// rates scaled, to the bit (every link's rate is one of the spec's rates, or the smaller of two,
// which scaling keeps). Throws std::logic_error if the link counts differ.
void scale_rates(const topo::Topology& plain, topo::Topology& into, double nvlink_fraction, double nic_fraction);

class CollectiveTimer {
 public:
  CollectiveTimer(topo::ClusterSpec cluster, CollectiveParams params, std::uint64_t seed);

  // The unscaled cluster: its VertexIds name the ranks.
  const topo::Topology& topology() const { return plain_; }
  const CollectiveParams& params() const { return params_; }
  // New parameters on the same cluster: every memo goes and the scaled copies take the new
  // rates (they depend on them); the plain topology, the routes, the groups closed_form() has
  // validated and the shapes of the trees' DAGs stay (they depend on the cluster and the sizes
  // alone). For a fit that evaluates many parameter sets on one system.
  void set_params(const CollectiveParams& params);
  // The cluster as `algorithm` runs on it with `protocol` (capacities scaled by the algorithm's
  // efficiencies and the protocol's bandwidth fraction).
  const topo::Topology& topology_for(Algorithm algorithm, Protocol protocol = Protocol::kSimple);
  // The spec time() builds its DAG from (alpha: the protocol's step latency).
  CollectiveSpec spec(const std::vector<topo::VertexId>& ranks, double bytes,
                      Protocol protocol = Protocol::kSimple) const;

  // One collective alone on the cluster. ranks: GPU vertex ids of topology(), in rank order;
  // bytes per NCCL's convention (algorithms.hpp). algorithm: nullopt = NCCL's tuner's choice
  // for the group (or choose_algorithm's, by thresholds). kSendRecv (kDirect) with 2 ranks is one transfer; with more
  // it is nccl-tests' shift (every rank to the next, all at once). Throws std::invalid_argument for an algorithm that
  // does not implement the op or fit the group.
  CollectiveTiming time(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                        std::optional<Algorithm> algorithm = std::nullopt);

  // What time() would return from the algorithm's alpha-beta closed form (alpha_beta.hpp) on the
  // scaled cluster, plus launch, without running the DAG. Not memoized.
  CollectiveTiming closed_form(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                               std::optional<Algorithm> algorithm = std::nullopt);

  // Several collectives of the same op and size started together (e.g. the data-parallel
  // groups of every pipeline stage, which share NICs and fabric links): their DAGs merged into
  // one run over the flow network. Returns each group's own finish time (launch included), in
  // group order. Every group must get the same algorithm (they share one scaled topology).
  std::vector<CollectiveTiming> time_concurrent(Op op, const std::vector<std::vector<topo::VertexId>>& groups,
                                                double bytes, std::optional<Algorithm> algorithm = std::nullopt);

 private:
  struct Scaled {
    topo::Topology topology;                         // plain_'s links at the fractions below
    double nvlink_fraction = -1, nic_fraction = -1;  // -1: not yet scaled
  };
  Scaled& scaled(Algorithm algorithm, Protocol protocol);
  CollectiveTiming resolve(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                           std::optional<Algorithm> algorithm) const;
  TransferDag build(Op op, const CollectiveTiming& t, const topo::Topology& topology,
                    const std::vector<topo::VertexId>& ranks, double bytes) const;

  topo::ClusterSpec cluster_;
  CollectiveParams params_;
  std::uint64_t seed_;
  topo::Topology plain_;
  // By the efficiency figure that scales NVLink (ring, tree or NVLS) and the protocol: rescaled in
  // place when the parameters change, so their routers keep their routes across a fit.
  std::map<std::pair<int, int>, std::unique_ptr<Scaled>> scaled_;
  std::unique_ptr<topo::Router> router_;                                  // shared by every scaled copy (see scaled())
  using Key = std::tuple<int, int, double, std::vector<topo::VertexId>>;  // op, algorithm (-1: auto), bytes, ranks
  std::map<Key, CollectiveTiming> memo_;
  using ConcurrentKey = std::tuple<int, int, double, std::vector<std::vector<topo::VertexId>>>;
  std::map<ConcurrentKey, std::vector<CollectiveTiming>> concurrent_memo_;
  std::set<std::tuple<int, int, std::vector<topo::VertexId>>> validated_;  // closed_form(): op, algorithm, ranks
  // closed_form(): the shapes of the trees' DAGs, which depend on the sizes and slicing alone
  // (kept by set_params(), like validated_).
  ClosedFormCache shapes_;
};

}  // namespace fathom::coll
