#include "models/network/flow_transfer.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/network/fabric_lp.hpp"
#include "models/network/link_components.hpp"
#include "sim/context.hpp"
#include "sim/hash.hpp"
#include "sim/simulation.hpp"

namespace fathom::net {

std::uint64_t flow_hash(std::uint64_t seed, std::uint64_t flow_id) {
  return sim::hash_combine(sim::mix64(seed), flow_id);
}

std::uint64_t subflow_hash(std::uint64_t hash, std::uint32_t j) { return j == 0 ? hash : sim::hash_combine(hash, j); }

RoutedFlow route_one(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                     std::uint64_t hash) {
  RoutedFlow out;
  route_one_into(topology, router, src, dst, hash, out);
  return out;
}

namespace {
void route_into(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                std::uint64_t hash, bool keep, RoutedFlow& out) {
  out.route.clear();
  out.fractions.clear();
  if (topology.routing == topo::Routing::kAdaptive) {
    const auto& spread = router.spread(src, dst);  // kept per (src, dst) either way: no hash
    double latency_ns = 0;
    bool whole = true;
    out.route.reserve(spread.size());
    for (const auto& s : spread) {
      out.route.push_back(s.link);
      latency_ns += s.fraction * static_cast<double>(topology.link(s.link).latency_ns);
      whole = whole && s.fraction == 1.0;
    }
    // A single path (inside a node, or a fabric without a choice) stays a plain route.
    if (!whole) {
      out.fractions.reserve(spread.size());
      for (const auto& s : spread) out.fractions.push_back(s.fraction);
    }
    out.latency = sim::SimTime::from_ns(std::llround(latency_ns));
    return;
  }
  if (keep) {
    const auto& path = router.route(src, dst, hash);
    out.route.assign(path.begin(), path.end());
  } else {
    router.route_into(src, dst, hash, out.route);
  }
  std::int64_t latency_ns = 0;
  for (LinkId l : out.route) latency_ns += topology.link(l).latency_ns;
  out.latency = sim::SimTime::from_ns(latency_ns);
}
}  // namespace

void route_one_into(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                    std::uint64_t hash, RoutedFlow& out) {
  route_into(topology, router, src, dst, hash, false, out);
}

void route_connection_into(const topo::Topology& topology, topo::Router& router, topo::VertexId src, topo::VertexId dst,
                           std::uint64_t hash, RoutedFlow& out) {
  route_into(topology, router, src, dst, hash, true, out);
}

std::vector<RoutedFlow> route_flows(const topo::Topology& topology, topo::Router& router,
                                    const std::vector<FlowRequest>& flows, std::uint64_t seed) {
  std::vector<RoutedFlow> routed(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    routed[i] = route_one(topology, router, flows[i].src, flows[i].dst, flow_hash(seed, flows[i].id));
  }
  return routed;
}

namespace {

// A traffic scenario's flows of one independent part, sent on one fabric at their start times.
class TrafficUser final : public FabricUser {
 public:
  TrafficUser(const std::vector<FlowRequest>& requests, std::vector<std::uint32_t> mine,
              std::vector<ConnectionId> connections, std::vector<FlowOutcome>& outcomes)
      : requests_(requests), mine_(std::move(mine)), connections_(std::move(connections)), outcomes_(outcomes) {}

  void on_start(FabricLp& fabric, sim::Context& ctx) override {
    for (std::size_t k = 0; k < mine_.size(); ++k) {
      const FlowRequest& r = requests_[mine_[k]];
      if (r.start < sim::SimTime::zero()) {
        throw std::invalid_argument("flow " + std::to_string(r.id) + " starts before time 0");
      }
      outcomes_[mine_[k]].activated = fabric.send(ctx, user, connections_[k], r.bytes, r.start, false, mine_[k]);
    }
  }
  void on_delivered(FabricLp& /*fabric*/, std::uint64_t tag, sim::Context& ctx) override {
    outcomes_[tag].finish = ctx.now();
  }

  std::uint32_t user = 0;

 private:
  const std::vector<FlowRequest>& requests_;
  std::vector<std::uint32_t> mine_;        // request indices, ascending
  std::vector<ConnectionId> connections_;  // per request of mine_
  std::vector<FlowOutcome>& outcomes_;
};

// One part's fabric: its links renumbered in ascending order of their LinkId (so the solver meets
// them in the same order as on the whole topology), each flow a connection of its own.
struct PartFabric {
  std::unique_ptr<FabricLp> fabric;
  std::unique_ptr<TrafficUser> user;
  std::vector<LinkId> global;  // local link -> the topology's
  std::vector<LinkLoadSample> loads;
};

// Builds part `part`'s fabric (its links renumbered, `local` the scratch map from the topology's
// LinkId) with one connection per member flow, and its user.
void build_part(const topo::Topology& topology, const std::vector<FlowRequest>& flows,
                const std::vector<RoutedFlow>& routes, const std::vector<std::uint32_t>& members,
                bool record_link_loads, std::vector<std::uint32_t>& local, std::vector<FlowOutcome>& outcomes,
                PartFabric& part) {
  for (std::uint32_t i : members) part.global.insert(part.global.end(), routes[i].route.begin(), routes[i].route.end());
  std::sort(part.global.begin(), part.global.end());
  part.global.erase(std::unique(part.global.begin(), part.global.end()), part.global.end());
  for (std::uint32_t k = 0; k < part.global.size(); ++k) local[part.global[k]] = k;
  std::vector<LinkCapacity> capacities;
  std::vector<sim::SimTime> latencies;
  for (LinkId l : part.global) {
    capacities.push_back({topology.link(l).bytes_per_s});
    latencies.push_back(sim::SimTime::from_ns(topology.link(l).latency_ns));
  }
  part.fabric = std::make_unique<FabricLp>(std::move(capacities), latencies);
  std::vector<ConnectionId> connections;
  for (std::uint32_t i : members) {
    Connection c{{routes[i]}, routes[i].latency};
    for (LinkId& l : c.flows[0].route) l = local[l];
    connections.push_back(part.fabric->open(std::move(c)));
  }
  part.user = std::make_unique<TrafficUser>(flows, members, std::move(connections), outcomes);
  part.user->user = part.fabric->add_user(*part.user);
  if (record_link_loads) {
    part.fabric->network().set_load_observer([&part](LinkId link, sim::SimTime t, double load) {
      part.loads.push_back({t, part.global[link], load});
    });
  }
}

}  // namespace

TransferResult simulate_transfers(const topo::Topology& topology, const std::vector<FlowRequest>& flows,
                                  const std::vector<RoutedFlow>& routes, std::uint64_t seed, bool record_link_loads,
                                  unsigned threads) {
  if (routes.size() != flows.size()) throw std::invalid_argument("simulate_transfers: one route per flow is needed");
  const std::size_t link_count = topology.links().size();
  const FlowParts parts = independent_parts(routes, link_count);
  std::vector<std::vector<std::uint32_t>> members(parts.parts);
  for (std::uint32_t i = 0; i < flows.size(); ++i) members[parts.part_of_flow[i]].push_back(i);

  TransferResult result;
  result.flows.resize(flows.size());
  std::vector<PartFabric> fabrics(parts.parts);
  std::vector<std::uint32_t> local(link_count, 0);
  sim::Simulation simulation(seed);
  sim::SimTime lookahead = sim::SimTime::max();
  for (std::uint32_t p = 0; p < parts.parts; ++p) {
    build_part(topology, flows, routes, members[p], record_link_loads, local, result.flows, fabrics[p]);
    if (!fabrics[p].global.empty()) lookahead = std::min(lookahead, fabrics[p].fabric->lookahead());
  }
  std::vector<FabricLp*> lps;
  for (PartFabric& part : fabrics) {
    lps.push_back(part.fabric.get());
    simulation.add(std::move(part.fabric));
  }
  // The parts never send each other an event; the lookahead they declare (their smallest link
  // latency) only sets the parallel scheduler's window.
  sim::RunOptions options;
  if (threads > 1 && lps.size() > 1 && lookahead > sim::SimTime::zero() && lookahead != sim::SimTime::max()) {
    simulation.set_lookahead(lookahead);
    options.scheduler = sim::Scheduler::kParallel;
    options.threads = threads;
    options.partitions = std::min<unsigned>(threads, static_cast<unsigned>(lps.size()));
  }
  const sim::RunResult run = simulation.run(options);

  result.link_bytes.assign(link_count, 0.0);
  for (std::size_t p = 0; p < lps.size(); ++p) {
    const FlowNetwork& network = lps[p]->network();
    for (std::size_t l = 0; l < fabrics[p].global.size(); ++l) {
      result.link_bytes[fabrics[p].global[l]] = network.link_bytes(static_cast<LinkId>(l));
    }
    result.component_updates += network.updates();
    result.flow_rerates += network.flow_rerates();
    result.local_settles += network.local_settles();
    result.link_loads.insert(result.link_loads.end(), fabrics[p].loads.begin(), fabrics[p].loads.end());
  }
  // Parts in order, each in its own time order: one stable sort gives one order for any thread count.
  std::stable_sort(result.link_loads.begin(), result.link_loads.end(),
                   [](const LinkLoadSample& a, const LinkLoadSample& b) { return a.time < b.time; });
  for (std::size_t i = 0; i < flows.size(); ++i) {
    // Every flow ends: a rate of zero is refused where links are built, and a finish beyond the
    // clock stops the run (BeyondClock). One that did not would be reported as done at 0.
    if (result.flows[i].finish < result.flows[i].activated) {
      throw std::logic_error("flow " + std::to_string(flows[i].id) + " never finished");
    }
    result.makespan = std::max(result.makespan, result.flows[i].finish);
  }
  result.fingerprint = run.fingerprint;
  result.events = run.committed;
  result.parts = parts.parts;
  result.partitions = run.partitions;
  return result;
}

}  // namespace fathom::net
