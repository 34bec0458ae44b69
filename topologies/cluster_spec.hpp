// ClusterSpec: the plain description of a cluster that the topology builders turn into a
// Topology. The scenario loader fills it from YAML; tests and benchmarks fill it directly.
// All quantities are SI: bytes_per_s, latency in ns.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::topo {

// One node: accelerators on an NVLink island (one NVSwitch plane), NICs on PCIe.
struct NodeSpec {
  int gpus = 8;                          // 0 for a plain server (fabric studies)
  int nics = 8;                          // scale-out NICs; NIC i serves GPUs i*gpus/nics ...
  double nvlink_bytes_per_s = 450e9;     // per GPU, per direction, to the NVSwitch plane
  std::int64_t nvlink_latency_ns = 500;  // GPU <-> NVSwitch, one way
  int nvswitches = 4;                    // NVSwitch chips per NVLink domain (counted for cost; modelled as one plane)
  bool nvls = false;                     // in-switch reduction (NVLink SHARP)
  int nvlink_domain_nodes = 1;           // nodes sharing one NVLink domain (NVL72-style: e.g. 18 trays)
  double pcie_bytes_per_s = 64e9;        // GPU <-> NIC, per direction
  std::int64_t pcie_latency_ns = 200;
  double nic_bytes_per_s = 50e9;  // NIC line rate, per direction (400 Gb/s = 50e9)
  double local_nvme_bytes = 0;    // local NVMe capacity (reported; storage tiers are not simulated yet)

  bool operator==(const NodeSpec&) const = default;
};

// A switch tier above the endpoints: tier 1 = leaves (top of rack), 2 = spines, 3 = cores.
struct TierSpec {
  double link_bytes_per_s = 0;       // each cable from the tier below up to this tier, per direction
  std::int64_t link_latency_ns = 0;  // one way, switch latency included

  bool operator==(const TierSpec&) const = default;
};

// How a fabric's switches pick among equal-cost next hops (topologies/routing.hpp).
enum class Routing {
  kEcmpHash,     // by a hash of the flow (Ethernet ECMP): flows to one destination spread out
  kDestination,  // by the destination alone (InfiniBand's static D-mod-K fat-tree routing):
                 // every flow to one destination takes the same path, and destinations on
                 // consecutive host ports leave a switch on different uplinks
  kAdaptive,     // per packet, onto the least-loaded equal-cost port (InfiniBand adaptive routing,
                 // packet spraying): at flow level every flow is spread evenly over its
                 // equal-cost next hops at each hop (Router::spread)
};

enum class FabricKind {
  kFatTree,        // leaf-spine(-core); each NIC on a leaf, NICs of a node spread over leaves in order
  kRailOptimized,  // NIC i of every node on rail i: a leaf group of its own (per pod with 3 tiers),
                   // joined by the spines (of the pod; pods joined by cores)
};

struct FabricSpec {
  FabricKind kind = FabricKind::kFatTree;
  int tiers = 2;  // 2 (leaf-spine) or 3 (leaf-spine-core, in pods)
  // Either a switch radix (k-ary fat-tree: ports per switch, halved between down and up
  // unless oversubscribed) or explicit counts; explicit counts win where given (> 0).
  int radix = 0;
  double oversubscription = 1.0;  // tier-1 down:up capacity ratio (3.0 = 3:1)
  int hosts_per_leaf = 0;         // NIC ports down per leaf
  int leaves = 0;                 // 0: as many as the NICs need
  int spines = 0;                 // 2-tier: spines in total; 3-tier: spines per pod
  int leaves_per_pod = 0;         // 3-tier only
  int cores = 0;                  // 3-tier only
  int links_per_leaf_spine = 0;   // parallel cables between each leaf and each spine (0: derived)
  int links_per_spine_core = 0;   // 3-tier: parallel cables between a spine and each of its cores (0: derived)
  std::vector<TierSpec> tier;     // index 0 = tier 1 (NIC-leaf), 1 = leaf-spine, 2 = spine-core
  Routing routing = Routing::kEcmpHash;

  bool operator==(const FabricSpec&) const = default;
};

struct ClusterSpec {
  int nodes = 1;
  NodeSpec node;
  FabricSpec fabric;

  bool operator==(const ClusterSpec&) const = default;
};

}  // namespace fathom::topo
