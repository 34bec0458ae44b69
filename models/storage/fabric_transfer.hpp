// A shared tier on the compute fabric (`attach: fabric`, docs/run.md#storage-on-the-fabric).
//
// The tier's servers become endpoints of the cluster's own topology. They hang off storage
// leaves of their own, as many ports each as a compute leaf has hosts, and every storage leaf is
// cabled like a compute leaf to every spine (2 tiers) or, in a 3-tier fabric, to every core, with
// as many cables as its servers' ports need: a storage leaf is not oversubscribed. A server's
// port carries what the server can move (server_bounds): towards the server, the bytes its
// clients send when writing (the client-write rate, times the copies a `fanout: client` client
// sends itself); away from it, its read rate. So the drives, the server's NICs and the shard
// fan-out between servers stay the server's own bounds, and the fabric adds its links.
//
// A transfer (a checkpoint written by every node at once, a restore, a step's data read) is
// simulated on the flow-level network: every node's bytes split evenly over its NICs, NIC flow
// g served by server g mod servers (each rank's file on one server, the files spread evenly),
// routed as the fabric routes (ECMP hash, D-mod-K or adaptive), every link shared max-min
// with every other flow until the last byte lands. The spines are assumed to have the ports.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/storage/storage_tier.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/topology.hpp"

namespace fathom::storage {

// `count` nodes, each moving `bytes_per_node`.
struct FabricClients {
  std::int64_t count = 0;
  double bytes_per_node = 0;
};

// The cluster with `tier`'s servers attached: "<tier>.leaf<j>" switches and "<tier>.server<i>"
// endpoints. std::invalid_argument when the tier is not built from servers or the cluster has
// no scale-out fabric.
topo::Topology attach_to_fabric(const topo::ClusterSpec& cluster, const TierSpec& tier);

struct FabricTransfer {
  double seconds = 0;  // until the last byte lands (the tier's request latency excluded)
  double bytes = 0;    // client bytes moved (before a client's own copies)
  int clients = 0;     // nodes
  // What the transfer takes of the compute fabric's links, by tier (0: NIC-leaf, 1: leaf-spine,
  // 2: spine-core): over the links it crosses, the mean of their bytes over the transfer's time
  // and their capacity. The links to and above the storage leaves are not counted.
  std::array<double, 3> link_load{};
};

// `groups` of nodes writing to (`write`) or reading from `tier` at once. The clients, in the
// groups' order, are spread evenly over the job's first `job_nodes` nodes (one writer per replica
// lands across the cluster, not under one leaf). `seed`: the fabric's ECMP hash.
FabricTransfer fabric_transfer(const topo::ClusterSpec& cluster, const TierSpec& tier, int job_nodes,
                               const std::vector<FabricClients>& groups, bool write, std::uint64_t seed);

// The cluster as a training job sees it while a transfer takes `link_load` of the fabric's links
// (FabricTransfer::link_load): the job's flows and the transfer's share each link max-min, so the
// job keeps what the transfer leaves, and at least half of it (a transfer bounded elsewhere keeps
// its rate; one that wants more is cut to a fair half). The NICs and each tier's cables run at
// that rate; the NVLink domain is untouched.
topo::ClusterSpec sharing_links(topo::ClusterSpec cluster, const std::array<double, 3>& link_load);

}  // namespace fathom::storage
