#include "models/network/flow_transfer.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/context.hpp"
#include "sim/hash.hpp"

namespace fathom::net {

namespace {
constexpr sim::EventKind kActivate = 1;
constexpr sim::EventKind kSettle = 2;

std::vector<LinkCapacity> capacities(const topo::Topology& topology) {
  std::vector<LinkCapacity> caps;
  caps.reserve(topology.links().size());
  for (const auto& l : topology.links()) caps.push_back({l.bytes_per_s});
  return caps;
}
}  // namespace

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

NetworkLp::NetworkLp(const topo::Topology& topology, const std::vector<FlowRequest>& flows,
                     const std::vector<RoutedFlow>& routes, bool record_link_loads)
    : flows_(flows), routes_(routes), settler_(capacities(topology), kSettle), outcomes_(flows.size()) {
  if (routes.size() != flows.size()) throw std::invalid_argument("NetworkLp: one route per flow is needed");
  if (record_link_loads) {
    settler_.network().set_load_observer([this](LinkId link, sim::SimTime t, double load) {
      link_loads_.push_back({t, link, load});
    });
  }
}

void NetworkLp::on_start(sim::Context& ctx) {
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].start < sim::SimTime::zero()) {
      throw std::invalid_argument("flow " + std::to_string(flows_[i].id) + " starts before time 0");
    }
    const sim::SimTime at = flows_[i].start + routes_[i].latency;
    outcomes_[i].activated = at;
    ctx.send(ctx.self(), at, kActivate, sim::Payload::of(static_cast<std::uint64_t>(i)));
  }
}

void NetworkLp::on_event(const sim::Event& event, sim::Context& ctx) {
  try {
    handle(event, ctx);
  } catch (const BeyondClock& e) {
    // Name the flow as the caller knows it: its index in the requests.
    throw BeyondClock(request_of_flow_[e.flow()], e.remaining_bytes(), e.bytes_per_s(), ctx.now());
  }
}

void NetworkLp::handle(const sim::Event& event, sim::Context& ctx) {
  if (event.kind == kActivate) {
    const auto i = event.payload.as<std::uint64_t>();
    const FlowId f = settler_.network().add_flow(routes_[i].route, routes_[i].fractions, flows_[i].bytes, ctx.now());
    if (f >= request_of_flow_.size()) request_of_flow_.resize(f + 1);
    request_of_flow_[f] = static_cast<std::uint32_t>(i);
    settler_.request(ctx, ctx.now());
  } else if (settler_.is_due(event)) {
    settler_.settle(ctx, [&](FlowId done) { outcomes_[request_of_flow_[done]].finish = ctx.now(); });
  }
}

TransferResult simulate_transfers(const topo::Topology& topology, const std::vector<FlowRequest>& flows,
                                  const std::vector<RoutedFlow>& routes, std::uint64_t seed, bool record_link_loads) {
  sim::Simulation simulation(seed);
  const sim::LpId id = simulation.add(std::make_unique<NetworkLp>(topology, flows, routes, record_link_loads));
  const sim::RunResult run = simulation.run({});
  const auto& lp = dynamic_cast<const NetworkLp&>(simulation.lp(id));
  TransferResult result;
  result.flows = lp.outcomes();
  for (std::size_t l = 0; l < lp.network().link_count(); ++l) {
    result.link_bytes.push_back(lp.network().link_bytes(static_cast<LinkId>(l)));
  }
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
  result.component_updates = lp.network().updates();
  result.flow_rerates = lp.network().flow_rerates();
  result.local_settles = lp.network().local_settles();
  result.link_loads = lp.link_loads();
  return result;
}

}  // namespace fathom::net
