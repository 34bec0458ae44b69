#include "models/network/fabric_lp.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::net {

namespace {

std::vector<LinkCapacity> capacities_of(const topo::Topology& topology) {
  std::vector<LinkCapacity> caps;
  caps.reserve(topology.links().size());
  for (const auto& l : topology.links()) caps.push_back({l.bytes_per_s});
  return caps;
}

sim::SimTime least_latency(const topo::Topology& topology) {
  if (topology.links().empty()) return sim::SimTime::zero();
  std::int64_t least = topology.links().front().latency_ns;
  for (const auto& l : topology.links()) least = std::min(least, l.latency_ns);
  return sim::SimTime::from_ns(least);
}

}  // namespace

FabricLp::FabricLp(const topo::Topology& topology)
    : settler_(capacities_of(topology), kSettle),
      link_count_(topology.links().size()),
      lookahead_(least_latency(topology)) {}

FabricLp::FabricLp(std::vector<LinkCapacity> capacities, const std::vector<sim::SimTime>& latencies)
    : settler_((capacities.size() == latencies.size()
                    ? std::move(capacities)
                    : throw std::invalid_argument("FabricLp: one latency per link is needed")),
               kSettle),
      link_count_(latencies.size()) {
  if (!latencies.empty()) lookahead_ = *std::min_element(latencies.begin(), latencies.end());
}

ConnectionId FabricLp::open(const Connection& connection) {
  if (connection.flows.empty()) throw std::invalid_argument("FabricLp::open: a connection needs at least one flow");
  for (const RoutedFlow& flow : connection.flows) {
    if (!flow.fractions.empty() && flow.fractions.size() != flow.route.size()) {
      throw std::invalid_argument("FabricLp::open: a flow has " + std::to_string(flow.fractions.size()) +
                                  " fractions for " + std::to_string(flow.route.size()) + " links");
    }
    for (LinkId l : flow.route) {
      if (l >= link_count_) {
        throw std::invalid_argument("FabricLp::open: link " + std::to_string(l) + " is not one of the fabric's " +
                                    std::to_string(link_count_));
      }
    }
  }
  connections_.push_back({flows_.size(), flows_.size() + connection.flows.size(), connection.latency});
  for (const RoutedFlow& flow : connection.flows) {
    OpenFlow& f = flows_.emplace_back();
    f.first_link = links_.size();
    links_.insert(links_.end(), flow.route.begin(), flow.route.end());
    f.end_link = links_.size();
    if (!flow.fractions.empty()) {
      f.first_fraction = fractions_.size();
      fractions_.insert(fractions_.end(), flow.fractions.begin(), flow.fractions.end());
    }
  }
  return static_cast<ConnectionId>(connections_.size() - 1);
}

std::uint32_t FabricLp::add_user(FabricUser& user) {
  users_.push_back(&user);
  return static_cast<std::uint32_t>(users_.size() - 1);
}

sim::SimTime FabricLp::send(sim::Context& ctx, std::uint32_t user, ConnectionId connection, double bytes,
                            sim::SimTime delay, bool streamed, std::uint64_t tag) {
  const sim::SimTime wait = delay + (streamed ? sim::SimTime::zero() : connections_.at(connection).latency);
  launch(ctx, carry({connection, 0, user, 0, tag, bytes}), wait);
  return ctx.now() + wait;
}

void FabricLp::post(sim::Context& ctx, sim::LpId fabric, sim::SimTime lookahead, const PostedTransfer& transfer) {
  ctx.send(fabric, lookahead, kPost, sim::Payload::of(transfer));
}

void FabricLp::on_start(sim::Context& ctx) {
  for (FabricUser* user : users_) user->on_start(*this, ctx);
}

void FabricLp::on_event(const sim::Event& event, sim::Context& ctx) {
  try {
    handle(event, ctx);
  } catch (const BeyondClock& e) {
    // Name the transfer as its sender knows it.
    throw BeyondClock(carried_[carrier_[e.flow()]].tag, e.remaining_bytes(), e.bytes_per_s(), ctx.now());
  }
}

void FabricLp::handle(const sim::Event& event, sim::Context& ctx) {
  if (event.kind == kActivate) {
    if (activate(static_cast<std::uint32_t>(event.payload.as<std::uint64_t>()), ctx)) settler_.request(ctx, ctx.now());
  } else if (event.kind == kPost) {
    const auto posted = event.payload.as<PostedTransfer>();
    const OpenConnection& c = connections_.at(posted.connection);
    // Sent lookahead() ago: what is left of the connection's latency (none below zero, as every
    // connection's latency is at least the lookahead).
    const sim::SimTime wait = std::max(sim::SimTime::zero(), c.latency - lookahead_);
    launch(ctx, carry({posted.connection, 0, kRemote, event.src, posted.tag, posted.bytes}), wait);
  } else if (settler_.is_due(event)) {
    settler_.settle(ctx, [&](FlowId done) { delivered(done, ctx); });
  }
}

std::uint32_t FabricLp::carry(const Carried& transfer) {
  if (transfer.user != kRemote && transfer.user >= users_.size()) {
    throw std::invalid_argument("FabricLp::send: no user " + std::to_string(transfer.user));
  }
  if (free_.empty()) {
    carried_.push_back(transfer);
    return static_cast<std::uint32_t>(carried_.size() - 1);
  }
  const std::uint32_t slot = free_.back();
  free_.pop_back();
  carried_[slot] = transfer;
  return slot;
}

void FabricLp::launch(sim::Context& ctx, std::uint32_t transfer, sim::SimTime delay) {
  if (delay == sim::SimTime::zero()) {
    if (activate(transfer, ctx)) settler_.request(ctx, ctx.now());
  } else {
    ctx.send(ctx.self(), delay, kActivate, sim::Payload::of(static_cast<std::uint64_t>(transfer)));
  }
}

bool FabricLp::activate(std::uint32_t transfer, sim::Context& ctx) {
  Carried& t = carried_[transfer];
  if (t.bytes == 0) {
    // Nothing to move: its last byte has arrived as its first would leave. Delivered now, without
    // a flow, so it costs no re-rating (half the transfers of a pipelined collective's DAG are
    // such zero-byte steps). The deliveries it sets off at this instant are queued, not nested,
    // so a chain of them is handled in order at any length.
    arrived_now_.push_back(transfer);
    if (!delivering_) {
      delivering_ = true;
      for (std::size_t k = 0; k < arrived_now_.size(); ++k) finish(arrived_now_[k], ctx);
      arrived_now_.clear();
      delivering_ = false;
    }
    return false;
  }
  const OpenConnection& c = connections_[t.connection];
  const std::size_t flows = c.end_flow - c.first_flow;
  t.flows_left = static_cast<std::uint32_t>(flows);
  const double bytes = t.bytes / static_cast<double>(flows);
  for (std::size_t k = c.first_flow; k < c.end_flow; ++k) {
    const OpenFlow& flow = flows_[k];
    const std::span<const LinkId> route(links_.data() + flow.first_link, flow.end_link - flow.first_link);
    const std::span<const double> fractions =
        flow.first_fraction == kNoFractions
            ? std::span<const double>()
            : std::span<const double>(fractions_.data() + flow.first_fraction, route.size());
    const FlowId f = settler_.network().add_flow(route, fractions, bytes, ctx.now());
    if (f >= carrier_.size()) carrier_.resize(f + 1);
    carrier_[f] = transfer;
  }
  return true;
}

void FabricLp::delivered(FlowId flow, sim::Context& ctx) {
  const std::uint32_t slot = carrier_[flow];
  if (--carried_[slot].flows_left > 0) return;  // the transfer's other flows are still moving
  finish(slot, ctx);
}

void FabricLp::finish(std::uint32_t slot, sim::Context& ctx) {
  const Carried t = carried_[slot];
  free_.push_back(slot);
  if (t.user == kRemote) {
    // The acknowledgement of the last byte travels back: one connection latency.
    ctx.send(t.poster, connections_[t.connection].latency, kDelivered,
             sim::Payload::of(static_cast<std::uint32_t>(t.tag)));
  } else {
    users_[t.user]->on_delivered(*this, t.tag, ctx);
  }
}

}  // namespace fathom::net
