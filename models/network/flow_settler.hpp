// FlowSettler: what the network's logical process (net::FabricLp) does at an instant to keep its
// FlowNetwork's rates max-min fair.
//
// Changes at one instant (flows added, flows finished) are applied first; then one "settle"
// event, at the lowest priority of that instant (255), credits progress, pops the completions
// and re-rates the network once. A completion handler may add flows at the same instant (a DAG's
// successor with no delay): they join the same settle, which re-rates again until nothing more
// is due now, so a chain of zero-delay transfers costs no extra events. Only the latest settle
// requested acts (each request bumps a generation carried in the event); a request for the
// instant already pending costs nothing.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/network/flow_network.hpp"
#include "sim/context.hpp"
#include "sim/event.hpp"
#include "sim/time.hpp"

namespace fathom::net {

class FlowSettler {
 public:
  // Settles run after every other event of their instant.
  static constexpr std::uint8_t kPriority = 255;

  // `settle_kind`: the event kind the owning LP reserves for settles.
  FlowSettler(std::vector<LinkCapacity> links, sim::EventKind settle_kind)
      : network_(std::move(links)), kind_(settle_kind) {}

  FlowNetwork& network() { return network_; }
  const FlowNetwork& network() const { return network_; }

  // Asks for a settle at `at` (not before now): call after adding flows (at now).
  void request(sim::Context& ctx, sim::SimTime at) {
    if (settle_at_ == at) return;
    ++generation_;  // any settle scheduled earlier is now stale
    settle_at_ = at;
    ctx.send(ctx.self(), at - ctx.now(), kind_, sim::Payload::of(generation_), kPriority);
  }

  // Whether `event` is the settle to act on (false for a stale one, or another kind).
  bool is_due(const sim::Event& event) const {
    return event.kind == kind_ && event.payload.as<std::uint64_t>() == generation_;
  }

  // The settle: every flow due now goes to on_done(flow) (already removed from the network; it
  // may add flows now, and request a settle now, which this one serves), then the network is
  // re-rated, until nothing more is due now; then the next completion's settle is requested.
  template <class OnDone>
  void settle(sim::Context& ctx, OnDone&& on_done) {
    // Flows added by on_done need no second settle at this instant, so settle_at_ must still
    // say "now" while the loop runs.
    const sim::SimTime now = ctx.now();
    FlowId done;
    do {
      while (network_.pop_completed(now, done)) on_done(done);
      network_.update(now);
    } while (network_.next_completion() <= now);
    settle_at_ = sim::SimTime::max();
    const sim::SimTime next = network_.next_completion();
    if (next != sim::SimTime::max()) request(ctx, next);
  }

 private:
  FlowNetwork network_;
  sim::EventKind kind_;
  std::uint64_t generation_ = 0;
  sim::SimTime settle_at_ = sim::SimTime::max();
};

}  // namespace fathom::net
