#include "models/storage/fabric_transfer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/network/flow_transfer.hpp"
#include "topologies/cluster.hpp"
#include "topologies/routing.hpp"

namespace fathom::storage {

namespace {

std::string indexed(const std::string& prefix, std::size_t i) { return prefix + std::to_string(i); }

// The switches a storage leaf is cabled to, and the speed and latency of those cables: every
// spine of a 2-tier fabric, every core of a 3-tier one.
struct Uplinks {
  std::vector<topo::VertexId> switches;
  topo::TierSpec cable;
};

Uplinks uplinks_of(const topo::Topology& t, const topo::ClusterSpec& cluster, const topo::FabricLayout& L) {
  Uplinks up;
  if (L.tiers == 2) {
    for (int s = 0; s < L.spines; ++s) up.switches.push_back(t.at(indexed("spine", static_cast<std::size_t>(s))));
    up.cable = cluster.fabric.tier.at(1);
  } else {
    for (int c = 0; c < L.cores; ++c) up.switches.push_back(t.at(indexed("core", static_cast<std::size_t>(c))));
    up.cable = cluster.fabric.tier.at(2);
  }
  return up;
}

}  // namespace

topo::Topology attach_to_fabric(const topo::ClusterSpec& cluster, const TierSpec& tier) {
  if (tier.per_node() || tier.servers < 1) {
    throw std::invalid_argument("storage." + tier.name +
                                ".attach: a shared tier built from its servers (servers:) to place on the fabric");
  }
  const topo::FabricLayout L = topo::layout_fabric(cluster);
  if (L.tiers == 0) {
    throw std::invalid_argument("storage." + tier.name + ".attach: a cluster with a scale-out fabric to place it on");
  }
  topo::Topology t = topo::build_cluster(cluster);
  const ServerBounds b = server_bounds(tier);
  const double in_rate = b.write_bytes_per_s * tier.client_write_traffic();  // what clients send a server
  const double out_rate = b.read_bytes_per_s;
  const Uplinks up = uplinks_of(t, cluster, L);
  const topo::TierSpec& port = cluster.fabric.tier.at(0);
  const int per_leaf = std::max(1, L.hosts_per_leaf);
  const int leaves = (tier.servers + per_leaf - 1) / per_leaf;
  for (int l = 0; l < leaves; ++l) {
    const topo::VertexId leaf =
        t.add_vertex(indexed(tier.name + ".leaf", static_cast<std::size_t>(l)), topo::VertexKind::kSwitch, 1);
    const int first = l * per_leaf;
    const int here = std::min(per_leaf, tier.servers - first);
    for (int i = first; i < first + here; ++i) {
      const topo::VertexId server =
          t.add_vertex(indexed(tier.name + ".server", static_cast<std::size_t>(i)), topo::VertexKind::kStorage);
      t.add_link(leaf, server, in_rate, port.link_latency_ns, topo::LinkClass::kStorage);
      t.add_link(server, leaf, out_rate, port.link_latency_ns, topo::LinkClass::kStorage);
    }
    // Not oversubscribed: cables up for everything its servers can move in either direction.
    const double down = here * std::max(in_rate, out_rate);
    const double per_switch = static_cast<double>(up.switches.size()) * up.cable.link_bytes_per_s;
    const int cables = std::max(1, static_cast<int>(std::ceil(down / per_switch - 1e-9)));
    for (topo::VertexId s : up.switches) {
      for (int c = 0; c < cables; ++c) {
        t.add_cable(leaf, s, up.cable.link_bytes_per_s, up.cable.link_latency_ns, topo::LinkClass::kStorage);
      }
    }
  }
  return t;
}

FabricTransfer fabric_transfer(const topo::ClusterSpec& cluster, const TierSpec& tier, int job_nodes,
                               const std::vector<FabricClients>& groups, bool write, std::uint64_t seed) {
  const topo::Topology t = attach_to_fabric(cluster, tier);
  FabricTransfer out;
  std::int64_t clients = 0;
  for (const FabricClients& g : groups) clients += g.count;
  if (clients == 0) return out;
  const int nodes = std::min(job_nodes, cluster.nodes);
  if (clients > nodes) {
    throw std::invalid_argument("fabric_transfer: " + std::to_string(clients) + " clients on " + std::to_string(nodes) +
                                " nodes");
  }
  const int nics = cluster.node.nics;
  const double traffic = write ? tier.client_write_traffic() : 1.0;
  std::vector<topo::VertexId> servers;
  for (int i = 0; i < tier.servers; ++i)
    servers.push_back(t.at(indexed(tier.name + ".server", static_cast<std::size_t>(i))));

  std::vector<net::FlowRequest> flows;
  flows.reserve(static_cast<std::size_t>(clients) * static_cast<std::size_t>(nics));
  std::int64_t k = 0;
  for (const FabricClients& g : groups) {
    for (std::int64_t c = 0; c < g.count; ++c, ++k) {
      const std::int64_t node = k * nodes / clients;
      for (int n = 0; n < nics; ++n) {
        const topo::VertexId nic = t.at("n" + std::to_string(node) + ".nic" + std::to_string(n));
        const std::uint64_t id = flows.size();
        const topo::VertexId server = servers[id % servers.size()];
        const double bytes = g.bytes_per_node * traffic / nics;
        flows.push_back({id, write ? nic : server, write ? server : nic, bytes, {}});
      }
      out.bytes += g.bytes_per_node;
    }
  }
  topo::Router router(t);
  const std::vector<net::RoutedFlow> routes = net::route_flows(t, router, flows, seed);
  const net::TransferResult r = net::simulate_transfers(t, flows, routes, seed);
  out.seconds = r.makespan.to_seconds();
  out.clients = static_cast<int>(clients);
  std::array<double, 3> load{}, crossed{};
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    const topo::Link& link = t.links()[l];
    const int tier = link.cls == topo::LinkClass::kHostLeaf    ? 0
                     : link.cls == topo::LinkClass::kLeafSpine ? 1
                     : link.cls == topo::LinkClass::kSpineCore ? 2
                                                               : -1;
    if (tier < 0 || !(r.link_bytes[l] > 0) || !(out.seconds > 0)) continue;
    load[static_cast<std::size_t>(tier)] += r.link_bytes[l] / out.seconds / link.bytes_per_s;
    crossed[static_cast<std::size_t>(tier)] += 1;
  }
  for (std::size_t k = 0; k < load.size(); ++k) out.link_load[k] = crossed[k] > 0 ? load[k] / crossed[k] : 0;
  return out;
}

topo::ClusterSpec sharing_links(topo::ClusterSpec cluster, const std::array<double, 3>& link_load) {
  const auto left = [&](std::size_t tier) { return 1 - std::clamp(link_load[tier], 0.0, 0.5); };
  cluster.node.nic_bytes_per_s *= left(0);
  for (std::size_t k = 0; k < cluster.fabric.tier.size() && k < link_load.size(); ++k) {
    cluster.fabric.tier[k].link_bytes_per_s *= left(k);
  }
  return cluster;
}

}  // namespace fathom::storage
