#include "models/collectives/nccl_tuner.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fathom::coll {

namespace {

using topo::LinkClass;
using topo::VertexId;
using topo::VertexKind;

// NCCL's model in its own units: microseconds and GB/s. Every constant below is NCCL's
// (src/graph/tuning.cc, NCCL 2.19 to 2.21), by the name it has there.

// One figure per protocol, in NCCL's order (LL, LL128, Simple).
struct PerProtocol {
  double ll = 0, ll128 = 0, simple = 0;
  double operator[](Protocol p) const { return p == Protocol::kLL ? ll : p == Protocol::kLL128 ? ll128 : simple; }
};

// baseLat: a collective's fixed latency.
constexpr PerProtocol kRingBase{6.6, 14.0, 8.4};
constexpr PerProtocol kTreeBase{6.8, 14.0, 0.0};
// hwLat: one step's latency by the hop it crosses (NVLink, PCIe, network).
constexpr PerProtocol kRingNvlink{0.6, 1.9, 3.4};
constexpr PerProtocol kRingPcie{1.0, 2.5, 5.7};
constexpr PerProtocol kRingNet{2.7, 4.0, 14.0};
constexpr PerProtocol kTreeNvlink{0.6, 1.25, 28.0};
constexpr PerProtocol kTreePcie{1.0, 1.9, 28.0};
constexpr PerProtocol kTreeNet{5.0, 8.5, 28.0};
constexpr double kNvlsNvlink = 23.0;   // NVLS and NVLS-tree inside a node (Simple)
constexpr double kNvlsTreeNet = 14.0;  // NVLS-tree per network hop (Simple)
// getNetOverhead: the host's cost of posting a network send, 1 us on Intel hosts (2 on AMD);
// a multi-node ring's intra-node step costs at least that, three times under Simple.
constexpr double kNetOverhead = 1.0;
constexpr double kNetOverheadSimpleFactor = 3.0;
// llMaxBws: LL's bus bandwidth cap, by node count: one node (Ampere and Hopper alike), two, more
// (the Intel-host row: AMD hosts have 22.5 and 19.0).
constexpr double kLlMaxOneNode = 87.7;
constexpr double kLlMaxTwoNodes = 39.0;
constexpr double kLlMaxMoreNodes = 20.4;
// Protocol and algorithm factors on the bus bandwidth.
constexpr double kRingLlFactor = 1.0 / 4.0;       // all-reduce, reduce, or any multi-node ring
constexpr double kRingLlOtherFactor = 1.0 / 3.0;  // one node's broadcast, all-gather, reduce-scatter
constexpr double kRingLl128Factor = 0.92;
constexpr double kRingLl128OnePerNodeFactor = 0.7;  // fewer than 2 ranks per node
constexpr double kTreeFactor = 0.92;
constexpr double kTreeLlFactor = 1.0 / 3.8;
constexpr double kTreeLl128OneNodeFactor = 7.0 / 9.0;
constexpr double kTreeLl128Factor = 120.0 / 128.0;
constexpr double kTreeRatio = 0.5;        // bus to algorithm bandwidth, trees
constexpr double kNvlsRatio = 5.0 / 6.0;  // the same, NVLS and NVLS-tree
// treeCorrectionFactor: trees fall short of the model at medium sizes; by protocol and
// log2(bytes / 64), 64 B to 256 MiB.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};
// The ring's plateau: a multi-node ring all-reduce under Simple pays 1.4x its latency (1.9x
// before Ampere) once each channel's share per rank reaches 64 bytes.
constexpr double kRingPlateau = 1.4;
constexpr double kRingPlateauBytes = 64;
// NCCL_P2P_LL_THRESHOLD's default (src/enqueue.cc).
constexpr double kP2pLlThreshold = 16384;

constexpr Protocol kProtocols[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};

int protocol_row(Protocol p) { return p == Protocol::kLL ? 0 : p == Protocol::kLL128 ? 1 : 2; }

// NCCL's log2i: floor(log2(n)) for n >= 1, 0 for 0.
int log2i(double n) {
  int l = 0;
  for (double v = std::floor(n); v >= 2; v = std::floor(v / 2)) ++l;
  return l;
}

}  // namespace

TunerGroup tuner_group(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  TunerGroup g;
  g.shape = group_shape(topology, ranks);
  if (ranks.empty()) return g;
  // Rates read off the first rank and its node (a group's nodes alike, as NCCL's search assumes).
  const VertexId first = ranks.front();
  double nvlink = 0, pcie = 0;
  for (topo::LinkId l : topology.out_links(first)) {
    const topo::Link& link = topology.link(l);
    if (link.cls == LinkClass::kNvLink) nvlink += link.bytes_per_s;
    if (link.cls == LinkClass::kPcie) pcie += link.bytes_per_s;
  }
  g.nvlink = nvlink > 0;
  g.intra_bytes_per_s = g.nvlink ? nvlink : pcie;
  // The NICs the node's ranks reach over PCIe, each at the lesser of its fabric link and the
  // PCIe links the group's GPUs have to it.
  std::map<VertexId, double> pcie_into;  // NIC -> PCIe rate from the group's GPUs of this node
  const std::int32_t node = topology.vertex(first).node;
  for (VertexId v : ranks) {
    if (topology.vertex(v).node != node) continue;
    for (topo::LinkId l : topology.out_links(v)) {
      const topo::Link& link = topology.link(l);
      if (link.cls == LinkClass::kPcie && topology.vertex(link.to).kind == VertexKind::kNic) {
        pcie_into[link.to] += link.bytes_per_s;
      }
    }
  }
  double inter = 0;
  for (const auto& [nic, into] : pcie_into) {
    double out = 0;
    for (topo::LinkId l : topology.out_links(nic)) {
      if (topo::is_fabric(topology.link(l).cls)) out += topology.link(l).bytes_per_s;
    }
    inter += std::min(out, into);
  }
  g.inter_bytes_per_s = g.shape.nodes > 1 ? inter : 0;
  g.channels = std::max(2, 2 * static_cast<int>(pcie_into.size()));
  return g;
}

std::vector<TunerEstimate> nccl_estimates(Op op, double bytes, const TunerGroup& group,
                                          std::optional<Protocol> protocol, std::optional<Algorithm> algorithm) {
  std::vector<TunerEstimate> out;
  const int n = group.shape.ranks;
  if (n <= 1 || !(bytes >= 0) || op == Op::kAllToAll || op == Op::kSendRecv) return out;
  // A multi-node NVLink domain is one node to NCCL (MNNVL).
  const int nodes = group.shape.one_nvlink_domain ? 1 : std::max(1, group.shape.nodes);
  const bool multi = nodes > 1;
  const double ppn = static_cast<double>(n) / nodes;
  const int ppn_whole = n / nodes;
  const double intra = group.intra_bytes_per_s / 1e9;
  const double inter = group.inter_bytes_per_s / 1e9;
  // NCCL's search gives a channel one speed for its NVLink and its network hops; its channels
  // together carry at most a GPU's NVLink and, across nodes, the node's NICs.
  const double bus = multi ? std::min(intra, inter) : intra;
  const double ll_max = nodes == 1 ? kLlMaxOneNode : nodes == 2 ? kLlMaxTwoNodes : kLlMaxMoreNodes;
  const PerProtocol& ring_intra = group.nvlink ? kRingNvlink : kRingPcie;
  const PerProtocol& tree_intra = group.nvlink ? kTreeNvlink : kTreePcie;
  const bool all_reduce = op == Op::kAllReduce;
  const int size_row = std::min(log2i(bytes / 64), 23);

  const auto wanted = [&](Algorithm a, Protocol p) {
    if (algorithm && *algorithm != a) return false;
    if (protocol && *protocol != p) return false;
    // LL128 only where NCCL enables it by default: NVLink inside the nodes.
    return p != Protocol::kLL128 || group.nvlink;
  };
  const auto add = [&](Algorithm a, Protocol p, double latency_us, double algorithm_gb_per_s) {
    if (algorithm_gb_per_s <= 0) return;
    out.push_back({a, p, bytes, latency_us * 1e-6, algorithm_gb_per_s * 1e9});
  };

  // Ring: every op NCCL has.
  const int steps = all_reduce ? 2 * (n - 1) : op == Op::kReduceScatter || op == Op::kAllGather ? n - 1 : n;
  const int inter_steps = all_reduce                                         ? (multi ? 2 * nodes : 0)
                          : op == Op::kReduceScatter || op == Op::kAllGather ? nodes - 1
                                                                             : nodes;
  for (Protocol p : kProtocols) {
    if (!wanted(Algorithm::kRing, p)) continue;
    double b = bus;
    if (p == Protocol::kLL) {
      const bool quarter = multi || all_reduce || op == Op::kReduce;
      b = std::min(ll_max, b * (quarter ? kRingLlFactor : kRingLlOtherFactor));
    }
    if (p == Protocol::kLL128) b *= ppn < 2 ? kRingLl128OnePerNodeFactor : kRingLl128Factor;
    double latency = kRingBase[p];
    if (op == Op::kBroadcast || op == Op::kReduce) {
      // A pipelined chain: every step at the hop's latency (Simple at the tree's, NCCL's stand-in
      // for its chunk latency).
      const double hop =
          p == Protocol::kSimple ? (multi ? kTreeNet : tree_intra)[p] : (multi ? kRingNet : ring_intra)[p];
      latency += steps * hop;
    } else {
      double intra_step = ring_intra[p];
      if (multi)
        intra_step = std::max(intra_step, kNetOverhead * (p == Protocol::kSimple ? kNetOverheadSimpleFactor : 1));
      latency += (steps - inter_steps) * intra_step + inter_steps * kRingNet[p];
    }
    if (p == Protocol::kSimple && multi && all_reduce && bytes / (group.channels * n) >= kRingPlateauBytes) {
      latency *= kRingPlateau;
    }
    add(Algorithm::kRing, p, latency, b * n / steps);
  }
  if (!all_reduce) return out;

  // Double binary tree: a chain in every node, log-depth trees over the nodes.
  for (Protocol p : kProtocols) {
    if (!wanted(Algorithm::kDoubleBinaryTree, p)) continue;
    double b = bus * kTreeFactor;
    if (p == Protocol::kLL) b = std::min(b * kTreeLlFactor, ll_max);
    if (p == Protocol::kLL128) b *= nodes == 1 ? kTreeLl128OneNodeFactor : kTreeLl128Factor;
    b *= kTreeRatio;
    if (size_row < 23) b *= kTreeCorrection[protocol_row(p)][size_row];
    const double latency = kTreeBase[p] + 2 * ((ppn_whole - 1) * tree_intra[p] + log2i(nodes) * kTreeNet[p]);
    add(Algorithm::kDoubleBinaryTree, p, latency, b);
  }
  // NVLS: one NVLink domain that reduces in the switch (NCCL runs it on one node, or one MNNVL
  // domain, without CollNet).
  if (group.shape.nvls && !multi && wanted(Algorithm::kNvls, Protocol::kSimple)) {
    add(Algorithm::kNvls, Protocol::kSimple, kNvlsNvlink, intra * kNvlsRatio);
  }
  // NVLS-tree: NVLS in every node, trees over the nodes.
  if (group.shape.nvls && multi && group.shape.ranks_per_node > 0 && wanted(Algorithm::kNvlsTree, Protocol::kSimple)) {
    const double b = std::min(intra, nodes <= 2 ? inter : inter / 2);
    add(Algorithm::kNvlsTree, Protocol::kSimple, kNvlsNvlink + 2 * log2i(nodes) * kNvlsTreeNet, b * kNvlsRatio);
  }
  return out;
}

std::optional<TunerEstimate> nccl_choice(Op op, double bytes, const TunerGroup& group, std::optional<Protocol> protocol,
                                         std::optional<Algorithm> algorithm) {
  std::optional<TunerEstimate> best;
  for (const TunerEstimate& e : nccl_estimates(op, bytes, group, protocol, algorithm)) {
    if (!best || e.seconds() < best->seconds()) best = e;
  }
  return best;
}

Protocol nccl_p2p_protocol(double bytes_per_peer) {
  return bytes_per_peer <= kP2pLlThreshold ? Protocol::kLL : Protocol::kSimple;
}

}  // namespace fathom::coll
