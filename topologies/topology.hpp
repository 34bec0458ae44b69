// Topology: one graph of a cluster's endpoints (accelerators, NICs, CPUs, storage), its
// switches (NVSwitches, leaves, spines, cores) and the directed links between them.
//
// Builders (cluster.hpp: NVLink islands, fat-trees, rail-optimised fabrics) fill it and
// describe what they built in a TopologySummary; routing.hpp finds paths on it. Links are
// directed: a cable is two links, one per direction, each with its own bandwidth counter
// in the network model. Names are stable and readable ("n12.gpu3", "n12.nic1", "leaf4",
// "spine0", link "leaf4->spine0") and appear in every CSV fathom writes.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topologies/cluster_spec.hpp"

namespace fathom::topo {

using VertexId = std::uint32_t;
using LinkId = std::uint32_t;

enum class VertexKind { kGpu, kNic, kCpu, kStorage, kNvSwitch, kSwitch, kWafer };  // kWafer: a wafer-scale system

// What a link is, for reports and for the cost model's cable counts.
enum class LinkClass {
  kNvLink,     // accelerator <-> NVSwitch
  kPcie,       // accelerator or CPU <-> NIC inside a node
  kHostLeaf,   // NIC (or host) <-> tier-1 switch
  kLeafSpine,  // tier 1 <-> tier 2
  kSpineCore,  // tier 2 <-> tier 3
  kStorage,    // storage endpoint links
};

// Whether a link is part of the scale-out fabric (NIC-leaf, leaf-spine, spine-core): a route
// that crosses one leaves its node.
constexpr bool is_fabric(LinkClass cls) {
  return cls == LinkClass::kHostLeaf || cls == LinkClass::kLeafSpine || cls == LinkClass::kSpineCore;
}

std::string_view to_string(VertexKind kind);
std::string_view to_string(LinkClass cls);

struct Vertex {
  std::string name;
  VertexKind kind = VertexKind::kSwitch;
  int tier = 0;                      // switches: 1 leaf, 2 spine, 3 core; NVSwitches 0; endpoints 0
  std::int32_t node = -1;            // cluster node of an endpoint or NVSwitch; -1 for fabric switches
  bool in_switch_reduction = false;  // an NVSwitch (NVLS) or fabric switch (SHARP) that reduces
};

struct Link {
  VertexId from = 0;
  VertexId to = 0;
  double bytes_per_s = 0;
  std::int64_t latency_ns = 0;
  LinkClass cls = LinkClass::kHostLeaf;
  std::string name;  // "from->to"
};

// Something about a built cluster that a user should hear before trusting its figures: the
// builder found it, the CLI prints it ("fathom: warning: ...") and the JSON report carries it.
struct TopologyWarning {
  enum class Kind {
    kNicLinkMismatch,  // node.nic_bytes_per_s and fabric.tier[0] differ; the cable runs at the slower
    kOversubscribed,   // a switch tier's worst switch has less capacity up than down
  };
  Kind kind = Kind::kOversubscribed;
  int tier = 1;         // the switch tier concerned (1: leaves and their NIC-leaf cables)
  double ratio = 1;     // kOversubscribed: down / up capacity; kNicLinkMismatch: NIC rate / link rate
  std::string message;  // one line, no "warning:" prefix
};

// "nic-link-mismatch", "oversubscribed": the names the JSON report writes.
std::string_view to_string(TopologyWarning::Kind kind);

// What a builder made: the counts the cost model prices and the figures a user checks.
struct TopologySummary {
  std::string description;                        // one line, e.g. "2-tier fat-tree, 32 leaves x 32 hosts, 8 spines"
  std::vector<std::size_t> switches_per_tier;     // index = tier (0: NVSwitches)
  std::vector<std::size_t> cables_per_tier;       // index = tier of the upper end (1: host-leaf, 2: leaf-spine, ...)
  std::size_t endpoints = 0;                      // GPUs, NICs, CPUs and storage endpoints
  double bisection_bytes_per_s = 0;               // one direction, across the worst balanced cut of the fabric
  std::vector<double> oversubscription_per_tier;  // down/up capacity ratio per switch tier (1.0 = non-blocking)
  std::vector<TopologyWarning> warnings;          // in tier order; empty when nothing is amiss
};

// A few lines for a terminal: the description, then per tier switches, cables and oversubscription,
// then one line per warning.
std::string to_string(const TopologySummary& summary);

// Boost.Graph view: vertex descriptors are VertexIds, each edge carries its LinkId.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                                    boost::property<boost::edge_index_t, LinkId>>;

class Topology {
 public:
  // Throws std::invalid_argument if the name is already taken.
  VertexId add_vertex(std::string name, VertexKind kind, int tier = 0, std::int32_t node = -1);
  // One directed link; throws std::invalid_argument for unknown vertices, a self-loop, a
  // non-positive or non-finite bandwidth, or a negative latency.
  LinkId add_link(VertexId from, VertexId to, double bytes_per_s, std::int64_t latency_ns, LinkClass cls);
  // A full-duplex cable: two directed links with the same bandwidth and latency. Returns
  // the id of the a->b link; the b->a link is the next id.
  LinkId add_cable(VertexId a, VertexId b, double bytes_per_s, std::int64_t latency_ns, LinkClass cls);

  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  const Vertex& vertex(VertexId v) const { return vertices_.at(v); }
  const Link& link(LinkId l) const { return links_.at(l); }
  std::optional<VertexId> find(std::string_view name) const;
  // Like find(), but throws std::invalid_argument naming the missing vertex and the closest names.
  VertexId at(std::string_view name) const;
  Vertex& mutable_vertex(VertexId v) { return vertices_.at(v); }
  // A new rate for an existing link (the same links and routes at other capacities: a copy
  // rescaled, as the collective timer's efficiency-scaled clusters are); throws like add_link().
  void set_rate(LinkId l, double bytes_per_s);

  const Graph& graph() const { return graph_; }
  // Outgoing and incoming links of a vertex, in order of creation.
  const std::vector<LinkId>& out_links(VertexId v) const { return out_.at(v); }
  const std::vector<LinkId>& in_links(VertexId v) const { return in_.at(v); }

  TopologySummary summary;
  Routing routing = Routing::kEcmpHash;

 private:
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::vector<std::vector<LinkId>> out_;
  std::vector<std::vector<LinkId>> in_;
  std::unordered_map<std::string, VertexId> by_name_;
  Graph graph_;
};

}  // namespace fathom::topo
