// The communication a training step needs, timed on the cluster's topology:
//   - collectives inside a small group (TP, EP) by running their transfer DAGs over the
//     flow-level network (coll::CollectiveTimer), once per distinct call;
//   - point-to-point exchanges that run all at once (pipeline sends, ring attention's K/V
//     blocks) by one max-min round of their flows: alpha + route latency + bytes at the
//     slowest flow's rate;
//   - data-parallel collectives, whose groups span the whole cluster, by a closed form: an
//     all-reduce by its hierarchical form (intra-node reduce-scatter, a ring across nodes on
//     every rail, intra-node all-gather), a reduce-scatter or all-gather across nodes by NCCL's
//     flat ring over every rank (n - m NVLink and m - 1 network steps of latency, the bytes at
//     the network's rate); the network rate is taken from one max-min round of every
//     concurrent group's ring flows: the ring repeats the same flow pattern at every step, so
//     one round's rates are every step's rates. Tests check both against running the full
//     DAGs on clusters small enough to do so.
// Every flow of a round is routed as the fabric's routing mode says: with ECMP hashing a flow that
// leaves its node travels as CollectiveParams::flows_per_connection flows with their own hashes,
// each carrying its part of the bytes (the slowest of them sets the pair's pace); with adaptive
// routing it is spread over every shortest path (topo::Router::spread).
// It also accumulates the bytes each link carries per step, for utilisation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/collectives/collective_timer.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::train {

using FlowPair = std::pair<topo::VertexId, topo::VertexId>;

class StepComms {
 public:
  StepComms(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params, std::uint64_t seed);

  const topo::Topology& topology() const { return timer_.topology(); }
  // Starts another step on the same cluster: forgets the step's group sets and link bytes, and
  // keeps the topology, the routes and every timed collective and max-min round (each a function
  // of the cluster, the parameters, the seed and its own arguments alone), so that the steps of
  // many strategies on one cluster share that work (CommsCache).
  void begin_step();
  coll::CollectiveTimer& timer() { return timer_; }

  // One collective of a small group, alone (identical groups elsewhere use disjoint links).
  coll::CollectiveTiming group(coll::Op op, const std::vector<topo::VertexId>& ranks, double bytes);
  // Transfers of `bytes` between every pair, all at once; seconds until the last arrives.
  double pairs(const std::vector<FlowPair>& pairs, double bytes);
  // Registers a set of groups that run their collectives together (the data-parallel groups
  // of every pipeline stage) and returns its id for data_parallel().
  int add_groups(std::vector<std::vector<topo::VertexId>> groups);
  // All-reduce, reduce-scatter or all-gather over every group of set `groups` at once; NCCL's
  // byte convention. `share`: the part of the set's traffic this call stands for, in the link
  // byte counts (1 / stages when each stage calls it for its own groups).
  double data_parallel(coll::Op op, int groups, double bytes, double share = 1.0);
  // The channels NCCL runs the set's collectives on (coll::tuner_group: two per NIC a node's
  // ranks use), each one CTA on one SM while it runs; 0 for a set of single ranks.
  int data_parallel_channels(int groups) const;

  // Seconds per byte of the slowest flow when all `flows` start together (max-min rates on the
  // fabric, NIC efficiency applied), and the longest route latency.
  struct Round {
    double seconds_per_byte = 0;
    std::int64_t latency_ns = 0;
    std::vector<std::vector<topo::LinkId>> routes;  // of each flow: every link it loads
    // Of each flow, per link of its route: the part of its bytes that crosses it; empty when the
    // flow is one path (1 everywhere). A flow split into ECMP sub-flows or spread by adaptive
    // routing has fractions below 1.
    std::vector<std::vector<double>> fractions;
    std::size_t subflows = 0;  // flows the max-min round ran (the pairs, with their sub-flows)
  };
  const Round& round(const std::vector<FlowPair>& flows);

  // The route of one flow (ECMP hash `hash`, or D-mod-K by destination).
  std::vector<topo::LinkId> route(const FlowPair& flow, std::uint64_t hash);
  // The links of one flow with the fraction of its bytes on each: its route (fraction 1) or, with
  // `spread`, every shortest path split evenly at each hop (adaptive routing).
  std::vector<topo::SpreadLink> path(const FlowPair& flow, std::uint64_t hash, bool spread);

  // Bytes per link accumulated by record() calls: flows' routes times bytes.
  void record(const std::vector<FlowPair>& flows, double bytes_per_flow);
  const std::vector<double>& link_bytes();

 private:
  struct DataParallelCost {
    double seconds = 0;
    std::vector<FlowPair> flows;  // the inter-node ring flows (empty inside one node)
    double bytes_per_flow = 0;    // what each carries in one call
    double calls = 0;             // calls (times their share) not yet added to the link bytes
  };
  DataParallelCost time_data_parallel(coll::Op op, const std::vector<std::vector<topo::VertexId>>& groups,
                                      double bytes);

  coll::CollectiveTimer timer_;
  topo::Router router_;
  // The fabric's switches alone (leaves, spines, cores) and the links between them: routes
  // between two switches run on it, so a distance table covers a few hundred switches
  // instead of every GPU and NIC of the cluster. Link ids map back through fabric_link_.
  topo::Topology fabric_;
  std::vector<topo::VertexId> fabric_vertex_;  // cluster vertex -> fabric vertex (or kNone)
  std::vector<topo::LinkId> fabric_link_;      // fabric link -> cluster link
  std::unique_ptr<topo::Router> fabric_router_;
  coll::CollectiveParams params_;
  std::uint64_t seed_;
  std::map<std::vector<FlowPair>, Round> rounds_;
  std::vector<std::vector<std::vector<topo::VertexId>>> group_sets_;
  std::map<std::tuple<int, double, int>, DataParallelCost> data_parallel_memo_;
  std::vector<double> link_bytes_;
};

}  // namespace fathom::train
