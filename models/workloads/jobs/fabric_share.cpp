#include "models/workloads/jobs/fabric_share.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/network/flow_network.hpp"
#include "models/network/flow_transfer.hpp"
#include "sim/hash.hpp"

namespace fathom::jobs {

namespace {
// What each flow carries while the rates are read: any amount does, as the rates are taken
// before any flow completes; this one keeps every finish time well inside the clock.
constexpr double kProbeBytes = 1e9;
}  // namespace

FabricShare::FabricShare(const topo::Topology& topology, std::uint64_t seed)
    : topology_(topology), router_(topology), seed_(seed), local_(topology.links().size(), -1) {
  for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
    const topo::Vertex& x = topology.vertex(v);
    if (x.kind != topo::VertexKind::kNic || x.node < 0) continue;
    if (static_cast<std::size_t>(x.node) >= nics_.size()) nics_.resize(static_cast<std::size_t>(x.node) + 1);
    nics_[static_cast<std::size_t>(x.node)].push_back(v);
  }
}

const std::vector<net::RoutedFlow>& FabricShare::hop_flows(std::int32_t a, std::int32_t b) {
  const std::uint64_t key =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  auto [it, fresh] = hops_.try_emplace(key);
  if (!fresh) return it->second;
  static const std::vector<topo::VertexId> none;
  const auto nics = [&](std::int32_t node) -> const std::vector<topo::VertexId>& {
    return static_cast<std::size_t>(node) < nics_.size() ? nics_[static_cast<std::size_t>(node)] : none;
  };
  const std::size_t rails = std::min(nics(a).size(), nics(b).size());
  for (std::size_t i = 0; i < rails; ++i) {
    // A function of the ring hop alone, not of the job: a job routes the same wherever it
    // meets its neighbours, and alone as beside them.
    const std::uint64_t hash =
        sim::hash_combine(sim::hash_combine(sim::hash_combine(sim::mix64(seed_), static_cast<std::uint64_t>(a)),
                                            static_cast<std::uint64_t>(b)),
                          i);
    it->second.push_back(net::route_one(topology_, router_, nics(a)[i], nics(b)[i], hash));
  }
  return it->second;
}

std::vector<double> FabricShare::ring_rates(std::span<const std::vector<std::int32_t>> job_nodes) {
  // Each flow's route in the solve's own dense link numbering, all in one buffer.
  struct Flow {
    std::size_t job;
    std::size_t first;  // its route is links[first, first + hops)
    std::size_t hops;
    const std::vector<double>* fractions;
  };
  std::vector<Flow> flows;
  std::vector<topo::LinkId> links;
  std::vector<net::LinkCapacity> capacity;
  std::vector<topo::LinkId> used;  // topology links in the solve, by local index
  for (std::size_t j = 0; j < job_nodes.size(); ++j) {
    const std::vector<std::int32_t>& nodes = job_nodes[j];
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const bool ascending = k == 0 || nodes[k] > nodes[k - 1];
      if (nodes[k] < 0 || !ascending) {
        throw std::invalid_argument("FabricShare: job " + std::to_string(j) +
                                    "'s nodes must be ascending and non-negative; node " + std::to_string(nodes[k]) +
                                    " at position " + std::to_string(k) + " is not");
      }
    }
    if (nodes.size() < 2) continue;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      for (const net::RoutedFlow& hop : hop_flows(nodes[k], nodes[(k + 1) % nodes.size()])) {
        flows.push_back({j, links.size(), hop.route.size(), &hop.fractions});
        for (const topo::LinkId l : hop.route) {
          if (local_[l] < 0) {
            local_[l] = static_cast<std::int32_t>(used.size());
            used.push_back(l);
            capacity.push_back({topology_.link(l).bytes_per_s});
          }
          links.push_back(static_cast<topo::LinkId>(local_[l]));
        }
      }
    }
  }
  for (const topo::LinkId l : used) local_[l] = -1;
  last_flows_ = flows.size();

  std::vector<double> rates(job_nodes.size(), std::numeric_limits<double>::infinity());
  if (flows.empty()) return rates;
  net::FlowNetwork network(std::move(capacity));
  std::vector<net::FlowId> ids;
  ids.reserve(flows.size());
  for (const Flow& f : flows) {
    const std::span<const topo::LinkId> route(links.data() + f.first, f.hops);
    ids.push_back(network.add_flow(route, *f.fractions, kProbeBytes, sim::SimTime::zero()));
  }
  network.update(sim::SimTime::zero());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    double& r = rates[flows[i].job];
    r = std::min(r, network.rate_bytes_per_s(ids[i]));
  }
  return rates;
}

}  // namespace fathom::jobs
