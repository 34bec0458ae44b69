// NCCL's tuner: which algorithm and protocol NCCL runs a collective with. NCCL does not choose by
// size thresholds: it estimates the time of every (algorithm, protocol) pair it may run with its
// own cost model, a latency plus the size over a bandwidth, and runs the fastest
// (ncclTopoTuneModel and ncclTopoGetAlgoTime, src/graph/tuning.cc, NCCL 2.19 to 2.21). This is
// that model, its constants cited in nccl_tuner.cpp, read from fathom's topology where NCCL reads
// its own topology search: the GPU's NVLink (or PCIe) rate and its node's NICs. The choice is
// NCCL's, not fathom's fastest: fathom then simulates the pair it picked (collective_timer.hpp).
// docs/collectives.md ("Choosing an algorithm") gives the model and what it leaves out.
#pragma once

#include <optional>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/collective_params.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

// What NCCL's model reads of a group.
struct TunerGroup {
  GroupShape shape;
  bool nvlink = false;           // a node's GPUs reach each other over NVLink (else over PCIe)
  double intra_bytes_per_s = 0;  // one GPU's links into its node (NVLink, else PCIe), one direction
  double inter_bytes_per_s = 0;  // the NICs of one node the group's ranks use, one direction; 0 on one node
  int channels = 0;              // NCCL's channels: two per NIC the ranks of a node use, at least 2
};

// The group `ranks` (GPU vertices of `topology`) as NCCL's model sees it: nominal rates, no
// efficiency figure (NCCL's model has its own factors).
TunerGroup tuner_group(const topo::Topology& topology, const std::vector<topo::VertexId>& ranks);

// One (algorithm, protocol) pair as NCCL's model times it.
struct TunerEstimate {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  double bytes = 0;
  double latency_s = 0;              // the model's latency for this size (the ring's plateau applied)
  double algorithm_bytes_per_s = 0;  // its bandwidth for this size (the tree's correction applied)
  double seconds() const { return latency_s + bytes / algorithm_bytes_per_s; }
};

// Every pair NCCL's model weighs for `op` on `group`: all-reduce by ring and double binary tree
// (trees across nodes only), NVLS inside one NVLink domain that reduces in the switch, NVLS-tree
// across such nodes; the other collectives by ring; each with LL, LL128 (over NVLink only, as
// NCCL enables it) and Simple, NVLS and NVLS-tree with Simple only. `protocol` keeps one
// protocol (NCCL_PROTO), `algorithm` one algorithm (NCCL_ALGO); an algorithm NCCL has no model
// for (halving-doubling, hierarchical, direct) gives no pair. In the model's order.
std::vector<TunerEstimate> nccl_estimates(Op op, double bytes, const TunerGroup& group,
                                          std::optional<Protocol> protocol = std::nullopt,
                                          std::optional<Algorithm> algorithm = std::nullopt);

// The pair of least estimated time (the first in the model's order on a tie), or nullopt where
// nccl_estimates gives none.
std::optional<TunerEstimate> nccl_choice(Op op, double bytes, const TunerGroup& group,
                                         std::optional<Protocol> protocol = std::nullopt,
                                         std::optional<Algorithm> algorithm = std::nullopt);

// NCCL's point-to-point protocol (send/recv and all-to-all): LL for a message to one peer of at
// most NCCL_P2P_LL_THRESHOLD (16 KiB), Simple above.
Protocol nccl_p2p_protocol(double bytes_per_peer);

}  // namespace fathom::coll
