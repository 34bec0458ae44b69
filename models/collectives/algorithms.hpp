// Collective algorithms as transfer DAGs (transfer_dag.hpp), and the choice of one by size
// thresholds (NCCL's own choice: nccl_tuner.hpp).
//
// Every builder takes the group's GPU vertices in rank order and a message size, and emits
// point-to-point transfers with the dependencies the algorithm has. Two rules hold for all
// of them, because they make a DAG's time on an idle fabric equal its alpha-beta closed form
// (alpha_beta.hpp) instead of depending on how max-min sharing splits a link:
//   - a GPU sends one message at a time and receives one at a time, in the order the builder
//     emits them (a GPU's sends wait on its previous send, its receives on its previous
//     receive), except where the algorithm sends to many peers at once (direct all-to-all)
//     or the peer is an NVSwitch (NVLS), whose links are separate; multi-channel rings keep
//     this order per channel (ring_channels());
//   - every message (what one GPU sends one peer in one algorithm step) is cut into slices of
//     `slice_bytes` (NVLS: `nvls_slice_bytes` per GPU of the plane), at most `max_slices` of
//     them, sent back to back; a slice moves on as soon as it has arrived (pipelining). The
//     message's first slice pays alpha_ns and the route latency; later slices are `pipelined`
//     (transfer_dag.hpp) and pay neither, since they stream behind the first: alpha is a cost
//     per algorithm step, not per slice, as in NCCL's own tuning model.
// Message sizes follow NCCL's conventions: `bytes` is the per-rank buffer of an all-reduce,
// broadcast or reduce, the per-rank input of a reduce-scatter, the per-rank output of an
// all-gather, and the per-rank send buffer of an all-to-all (bytes / n to each peer).
// docs/collectives.md shows each DAG and its closed form.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/collectives/step_period.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

enum class Op { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kReduce, kAllToAll, kSendRecv };

enum class Algorithm {
  kRing,              // all-reduce, reduce-scatter, all-gather; broadcast and reduce as a pipelined chain
  kDirect,            // all-to-all (everyone to everyone at once); send/recv
  kHalvingDoubling,   // all-reduce, power-of-two groups (Rabenseifner)
  kDoubleBinaryTree,  // all-reduce: two complementary binary trees, half the data each; across nodes
                      // a chain in every node and the two trees over the nodes (NCCL's Tree)
  kHierarchical,      // all-reduce: intra-node ring RS, per-rail inter-node ring AR, intra-node ring AG
  kNvls,              // all-reduce inside one NVLink domain with in-switch reduction
  kNvlsTree,          // all-reduce across nodes: NVLS RS in each node, per-rail double binary tree
                      // over the nodes, NVLS AG, pipelined by slices
};

std::string_view to_string(Op op);
std::string_view to_string(Algorithm algorithm);

struct CollectiveSpec {
  std::vector<topo::VertexId> ranks;  // GPU vertices in rank order
  double bytes = 0;                   // message size, see the header comment
  std::int64_t alpha_ns = 0;          // start delay of every message: software cost of one algorithm step
  double slice_bytes = 0;             // slice size of ring, chain, tree and halving-doubling messages; 0: whole
  double nvls_slice_bytes = 0;        // NVLS: slice size per GPU of the plane; 0: whole messages
  int max_slices = 64;                // at most this many slices per message (>= 1); chains: chain_slice_cap
  int root = 0;                       // broadcast and reduce: root rank
  // Per-slice cost of the protocol (NCCL's per-step flag handshake): every slice of a message
  // after its first waits this long before its bytes move, so a message of k slices pays
  // alpha + (k - 1) x step_ns of software time. Counted on the real slices, not the DAG's
  // (slicing()): the max_slices bound must not change a message's total cost.
  std::int64_t step_ns = 0;
  // The same for a round of NVLS (nvls_slice_bytes per GPU through the switch), which costs
  // differently: a multimem reduction or multicast round trip through the NVSwitch, with a
  // barrier of the plane's GPUs, instead of a point-to-point handshake.
  std::int64_t nvls_step_ns = 0;
  // A router of the topology the DAG is built on, whose routes and distance tables the builders
  // may reuse (a CollectiveTimer's, shared by every size it times); null: a build routes with a
  // router of its own. Routes are the same either way: it only saves searching them again.
  topo::Router* router = nullptr;
};

// How a message is cut: into `real` slices of the protocol (ceil(message / slice)), of which the
// DAG carries `count` (at most the cap). The first and the last DAG slices are one real slice
// each -- so that a pipeline fills and drains in one real slice's time, as NCCL's does, whatever
// the cap -- and the count - 2 between them share the rest equally, each standing for
// (real - 2) / (count - 2) real slices and waiting that many step_ns (`later_ns`, rounded to
// whole ns) before moving; the last waits one step_ns. (With two DAG slices, the first is one
// real slice and the second the rest.) The first waits alpha alone: the message pays
// alpha + (real - 1) x step_ns in all, up to the rounding.
struct Slicing {
  int count = 1;
  int real = 1;
  std::int64_t later_ns = 0;  // delay of a middle slice (of the second, with two)
  std::int64_t last_ns = 0;   // delay of the last slice (with three or more)
  // Whether slice c is the one-real-slice tail (three or more DAG slices).
  bool is_tail(int c) const { return count >= 3 && c == count - 1; }
  // The delay of slice c > 0; slice 0 pays alpha instead.
  std::int64_t delay_ns(int c) const { return c == 0 ? 0 : (is_tail(c) ? last_ns : later_ns); }
  // What the slice delays add to a message beyond alpha.
  std::int64_t total_extra_ns() const {
    std::int64_t total = 0;
    for (int c = 1; c < count; ++c) total += delay_ns(c);
    return total;
  }
  // The share of the message slice c carries (they sum to 1).
  double fraction(int c) const {
    if (count <= 1) return 1.0;
    const double one = 1.0 / real;
    if (c == 0 || is_tail(c)) return one;
    return count == 2 ? 1.0 - one : (1.0 - 2 * one) / (count - 2);
  }
};
Slicing slicing(double message_bytes, double slice_bytes, int max_slices, std::int64_t step_ns);

// The slices a message of `message_bytes` is cut into: ceil(message / slice), at least 1 and at
// most `max_slices`; 1 when slice_bytes is 0.
int slice_count(double message_bytes, double slice_bytes, int max_slices);
// The cap on the slices of a pipelined chain (broadcast, reduce) over `ranks` ranks: a chain of
// h = ranks - 1 hops fills its pipeline in h - 1 slice times, so it may use (h - 1) x
// max_slices slices and its fill stays 1/max_slices of its bytes, as NVLS's (two stages) does.
int chain_slice_cap(int max_slices, std::size_t ranks);
// The cap on the slices of a one-plane NVLS all-reduce over `gpus` GPUs: a slice is only 2 x gpus
// transfers, so it may use gpus x max_slices slices (8 GPUs, 64: 512, what an 8 GiB message needs
// at NCCL's 16 MiB rounds) and its two-stage pipeline's fill of one slice shrinks with them.
int nvls_slice_cap(int max_slices, std::size_t gpus);

// The rings ("channels") a ring all-reduce, reduce-scatter or all-gather runs, as NCCL runs one
// ring per channel. A group spanning N > 1 nodes with the same g > 1 ranks on each gets C = g
// channels: channel c visits the nodes in order (ranks_by_node) and, inside each, that node's
// ranks rotated by c (local ranks c, c+1, ..., c+g-1 mod g). So channel c leaves every node from
// local rank (c+g-1) mod g and enters the next at local rank c: each channel crosses between
// nodes through its own GPUs and NICs, and together they use every GPU's NIC. Any other group
// (one node, one rank per node, or unequal nodes) gets one channel, the ranks in rank order.
std::vector<std::vector<topo::VertexId>> ring_channels(const topo::Topology& topology,
                                                       const std::vector<topo::VertexId>& ranks);

// Builders. Each validates the spec (at least one rank, no rank twice, bytes >= 0, slice
// sizes >= 0, max_slices >= 1, a valid root) and throws std::invalid_argument naming what is
// wrong.
// Rings without a topology: one channel, the ranks in rank order.
TransferDag ring_all_reduce(const CollectiveSpec& spec);
TransferDag ring_reduce_scatter(const CollectiveSpec& spec);
TransferDag ring_all_gather(const CollectiveSpec& spec);
// Rings over ring_channels(): each channel is an independent ring on bytes / C (its own steps,
// dependencies, alpha and slicing; a GPU's one-send-at-a-time order holds per channel, since
// NCCL runs its channels concurrently). One channel is exactly the ring above.
TransferDag ring_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec);
TransferDag ring_reduce_scatter(const topo::Topology& topology, const CollectiveSpec& spec);
TransferDag ring_all_gather(const topo::Topology& topology, const CollectiveSpec& spec);
// A ring all-reduce, reduce-scatter or all-gather over ring_channels() as identical steps, for
// timing it by its period (step_period.hpp): how many steps it has (2(n-1) for an all-reduce,
// n-1 for the others), and its first `steps` (all of them: the DAG above) with each transfer's
// step. Throws std::invalid_argument for another op or a step count out of range.
bool is_stepped_ring(Op op, Algorithm algorithm);  // a ring all-reduce, reduce-scatter or all-gather
int ring_step_count(Op op, std::size_t ranks);
StepDag ring_first_steps(Op op, const topo::Topology& topology, const CollectiveSpec& spec, int steps);
TransferDag ring_broadcast(const CollectiveSpec& spec);  // chain root, root+1, ..., root-1
TransferDag ring_reduce(const CollectiveSpec& spec);     // chain root+1, root+2, ..., root
TransferDag direct_all_to_all(const CollectiveSpec& spec);
// Two ranks: one transfer of `bytes` ranks[0] -> ranks[1], unsliced. More ranks: nccl-tests'
// sendrecv_perf pattern, every rank r sends `bytes` to rank r+1 (mod n), all at once.
TransferDag send_recv(const CollectiveSpec& spec);
TransferDag halving_doubling_all_reduce(const CollectiveSpec& spec);  // needs n a power of two
// NCCL's two trees over all the ranks, each carrying S/2 in slices (one node: what
// build_collective() runs for kDoubleBinaryTree on a single node).
TransferDag double_binary_tree_all_reduce(const CollectiveSpec& spec);
// These read the topology: ranks grouped by node (Vertex::node, equal GPUs per node, rail =
// position within the node), and the NVSwitch plane of each GPU.
TransferDag hierarchical_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec);
TransferDag nvls_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec);
// The double binary tree as NCCL runs it (its Tree algorithm, docs/collectives.md). One node:
// double_binary_tree_all_reduce(). Across N > 1 nodes: C = 2 x R channels, R = tree_rails()'s
// rails; channel (t, r) carries S / C over tree t of double_binary_tree_parents(N) and rail r's
// chains: up each node's chain to its head, up tree t between the heads, down again, and down
// every chain, pipelined in slices (slice_bytes, at most tree_slice_cap()). Transfers queue on
// the links at their two ends (a GPU's NVLink or NIC, Builder::add_queued): a head interior
// in tree t carries, on its NIC, two children's sums in and its parent's result in, its sum
// out and its result out to two children.
TransferDag tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec);
// The chains of the tree across nodes: rails[r][node] is node's chain in rail r, head first. A
// group with the same g ranks on every node has g rails, rail r starting each chain at the
// node's local rank r (its ranks rotated by r), so the rails' heads, and their NICs, differ, as
// NCCL spreads its channels over a node's NICs; any other group has one rail, each node's ranks
// in their given order.
std::vector<std::vector<std::vector<topo::VertexId>>> tree_rails(const topo::Topology& topology,
                                                                 const std::vector<topo::VertexId>& ranks);
// The cap on a tree's slices (either tree): max_slices x (steps - 1), steps being how many
// hops a slice crosses one after another, so that its pipeline's fill stays 1/max_slices of its
// bytes, as chain_slice_cap keeps a chain's.
int tree_slice_cap(int max_slices, int steps);
// NVLS-tree, pipelined by the slices of an NVLS phase on `bytes` (nvls_slice_bytes x g each, at
// most tree_slice_cap()): slice p is reduce-scattered in each node's switch (GPU j gets part j of
// the node's sum), part j goes up and down the double binary tree over the nodes on rail j (GPU
// j of every node; half of it in each tree), and the switch multicasts the result back. Each
// phase of slice p waits for slice p's previous phase only; transfers queue on the links at
// their two ends, so a GPU's NVLink carries its reduce-scatter and its all-gather, and an
// interior node's NIC its children's and its parent's traffic, one after another.
TransferDag nvls_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec);

// Dispatch; throws std::invalid_argument for a pair the library does not implement.
TransferDag build_collective(Op op, Algorithm algorithm, const topo::Topology& topology, const CollectiveSpec& spec);
// The collective as identical steps, for timing it by its period (step_period.hpp), when it is
// one: a ring all-reduce, reduce-scatter or all-gather of two ranks or more. Each prefix is
// built exactly as build_collective() builds the whole, with fewer steps. std::nullopt for any
// other (the trees' slices are not timed by a period yet: their pipeline drains over its last
// slices, so the spacing of their finishes is not one period).
std::optional<SteppedCollective> stepped_collective(Op op, Algorithm algorithm, const topo::Topology& topology,
                                                    const CollectiveSpec& spec);
// Throws what build_collective would for this op, algorithm and spec, without building the
// whole DAG where it need not (a ring's steps: none is built).
void check_collective(Op op, Algorithm algorithm, const topo::Topology& topology, const CollectiveSpec& spec);

// The double binary tree's two trees: parent[t][r] is rank r's parent in tree t (-1 at the
// root). Tree 0 is NCCL's bit-based binary tree rooted at rank 0 (ncclGetBtree); tree 1 is, as
// in NCCL's ncclGetDtree (src/graph/trees.cc), tree 0 shifted by one rank for even n, so that
// every member interior in one tree is a leaf in the other, and its mirror (r -> n-1-r) for odd n.
std::vector<std::vector<int>> double_binary_tree_parents(int n);

// How the group sits on the machine.
struct GroupShape {
  int ranks = 0;
  int nodes = 0;                   // distinct Vertex::node values
  int ranks_per_node = 0;          // 0 when nodes hold different numbers of ranks
  bool nvls = false;               // every rank's NVSwitch plane reduces in the switch
  bool one_nvlink_domain = false;  // all ranks on one NVSwitch plane
};
GroupShape group_shape(const topo::Topology& topology, const std::vector<topo::VertexId>& ranks);

// Ranks grouped by node, nodes in order of first appearance, ranks in their given order.
std::vector<std::vector<topo::VertexId>> ranks_by_node(const topo::Topology& topology,
                                                       const std::vector<topo::VertexId>& ranks);
// Rail j: the j-th rank of every node (nodes as ranks_by_node returns them).
std::vector<std::vector<topo::VertexId>> rails_of(const std::vector<std::vector<topo::VertexId>>& nodes);

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::kRing;
  std::string_view reason;  // one line for reports
};

// The choice by size thresholds (`tuner: thresholds`, what calibration fits; NCCL's own tuner is
// nccl_tuner.hpp; see docs/collectives.md): NVLS for all-reduce inside an NVLS domain from nvls_min_bytes up, the
// double binary tree for all-reduce across nodes below tree_max_bytes, NVLS-tree above it on
// NVLS hardware, the ring otherwise; direct all-to-all and send/recv; rings for the rest. The
// defaults are kNvlsMinBytes and kTreeMaxBytes (collective_params.hpp; calibration fits them).
AlgorithmChoice choose_algorithm(Op op, double bytes, const GroupShape& shape, double nvls_min_bytes = kNvlsMinBytes,
                                 double tree_max_bytes = kTreeMaxBytes);

}  // namespace fathom::coll
