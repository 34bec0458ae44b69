// FlowNetwork: flow-level bandwidth sharing over directed links, max-min fair.
//
// The model is SimGrid's CM02 without its TCP factors. A flow crosses a route of links;
// while active it moves its bytes at a rate shared max-min fairly (plain, unweighted
// progressive filling) among all active flows on each link, and rates are recomputed
// whenever a flow becomes active or finishes. (The latency wait before a flow becomes
// active is the caller's: see network_lp.hpp.)
//
// A flow spread over several paths (adaptive routing, topologies/routing.hpp) gives each link
// of its route a fraction: the part of its bytes that crosses the link. At rate r it loads the
// link with fraction x r, and in progressive filling it counts `fraction` times on the link: a
// link's fair share is (capacity left) / (sum of its unfrozen flows' fractions). A plain path
// has fraction 1 everywhere; a link listed twice counts twice.
//
// Recompute only what changed. An arrival that finds spare capacity on every link of its route,
// and no faster flow on the links it saturates, takes that capacity and moves no one; a
// departure from links that are not saturated, or that it had to itself, moves no one either.
// Any other change marks the links it touches, and update() re-rates a region: the flows on
// those links, with every other flow held at its rate, grown by the outside flows whose
// bottleneck may have moved until none is left (at worst the connected components of links
// and flows reachable from the changed links; two flows are connected when they share a
// link). A flow whose rate a re-rating leaves unchanged keeps its prediction. Event times are
// integer ns; remaining bytes are doubles. Predicted completions sit in a heap with lazy
// invalidation (each new prediction bumps the flow's version, stale entries are skipped).
// Flow slots, route vectors, the heaps and the work lists keep their capacity, so steady state
// allocates nothing per flow.
//
// This class knows nothing of the engine; it is driven by NetworkLp and by tests.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "sim/time.hpp"

namespace fathom::net {

using LinkId = std::uint32_t;
using FlowId = std::uint32_t;

struct LinkCapacity {
  double bytes_per_s = 0;
};

// A flow whose finish, at the rate it is given, lies beyond the last instant SimTime can hold
// (2^63 ns, about 292 years): the run cannot report it, so it stops with this instead of a
// wrong figure. `flow` is the network's FlowId, or the caller's own index once it rethrows;
// seconds() is the finish, from time 0.
class BeyondClock : public sim::TimeOutOfRange {
 public:
  BeyondClock(std::uint64_t flow, double remaining_bytes, double bytes_per_s, sim::SimTime now);
  std::uint64_t flow() const { return flow_; }
  double remaining_bytes() const { return remaining_bytes_; }
  double bytes_per_s() const { return bytes_per_s_; }

 private:
  std::uint64_t flow_;
  double remaining_bytes_, bytes_per_s_;
};

class FlowNetwork {
 public:
  explicit FlowNetwork(std::vector<LinkCapacity> links);

  // Starts sharing bandwidth at `now`. The route must name existing links; an empty route
  // (source and destination are one endpoint) or zero bytes completes at `now`. Rates of
  // the flows it meets change at the next update().
  FlowId add_flow(std::span<const LinkId> route, double bytes, sim::SimTime now);
  // The same for a flow spread over several paths: fractions[h] is the part of its bytes that
  // crosses route[h] (finite and > 0; one per link of the route; empty: 1 everywhere). Throws
  // std::invalid_argument for a size mismatch or a bad fraction.
  FlowId add_flow(std::span<const LinkId> route, std::span<const double> fractions, double bytes, sim::SimTime now);

  // Re-rates every flow in the components touched since the last update; a flow whose rate
  // changes is first credited its progress up to `now` at its old rate. Call once per instant, after all the
  // additions and completions of that instant.
  void update(sim::SimTime now);

  // The earliest predicted completion of an active flow (SimTime::max() when none). Valid
  // after update().
  sim::SimTime next_completion();
  // Removes and returns one flow whose predicted completion is at or before `now`; returns
  // false when there is none. The flow's slot may be reused by a later add_flow().
  bool pop_completed(sim::SimTime now, FlowId& flow);

  std::size_t active_flows() const { return active_; }
  double rate_bytes_per_s(FlowId f) const { return flows_.at(f).rate; }
  // Bytes left as of the flow's last change of rate (progress at an unchanged rate is credited
  // lazily, when the rate next changes or the flow completes).
  double remaining_bytes(FlowId f) const { return flows_.at(f).remaining; }

  // Per link: bytes carried by the flows up to their last change of rate (all of them once every
  // flow has completed) and the capacity.
  double link_bytes(LinkId l) const { return links_.at(l).bytes_carried; }
  double link_capacity(LinkId l) const { return links_.at(l).capacity; }
  std::size_t link_count() const { return links_.size(); }
  // Current total rate on a link (<= capacity), for utilisation samples.
  double link_load_bytes_per_s(LinkId l) const;

  // Called with (link, time, new load in bytes/s) whenever a link's total rate changes, for
  // utilisation over time. Off by default: watching costs a pass over each re-rated link.
  using LoadObserver = std::function<void(LinkId, sim::SimTime, double)>;
  void set_load_observer(LoadObserver observer) { load_observer_ = std::move(observer); }

  // Work counters, for benchmarks: components re-rated, flows re-rated, and arrivals rated
  // from their own links alone (no re-rating).
  std::uint64_t updates() const { return updates_; }
  std::uint64_t flow_rerates() const { return flow_rerates_; }
  std::uint64_t local_settles() const { return local_settles_; }

  // A link whose load is within this fraction of its capacity counts as saturated. Rounding in
  // progressive filling leaves a saturated link within about 1e-15 of its capacity; a link
  // taken for saturated that is not only costs a re-rating, never a wrong rate.
  static constexpr double kSaturatedRel = 1e-9;

 private:
  struct FlowSlot {
    std::vector<LinkId> route;
    std::vector<double> fraction;         // per route link; empty: 1 on every link
    std::vector<std::uint32_t> position;  // index of this flow in each route link's list
    double remaining = 0;
    double rate = 0;
    double previous_rate = 0;  // scratch: the rate before the re-rating in progress
    sim::SimTime last_update;  // progress is credited up to here
    sim::SimTime finish = sim::SimTime::max();
    std::uint32_t version = 0;
    std::uint32_t mark = 0;  // component epoch
    bool active = false;
    bool frozen = false;
  };
  struct LinkSlot {
    double capacity = 0;
    double bytes_carried = 0;
    std::vector<std::pair<FlowId, std::uint32_t>> flows;  // (flow, hop index in its route)
    std::uint32_t mark = 0;                               // component epoch
    bool dirty = false;
    double cap_left = 0;  // progressive filling scratch
    std::uint32_t unfrozen = 0;
    double unfrozen_fraction = 0;     // sum of the unfrozen flows' fractions on this link
    double share = 0;                 // progressive filling: cap_left / unfrozen_fraction
    std::uint32_t heap_pos = 0;       // index in share_heap_ while the link is in it
    std::uint64_t touched_round = 0;  // the freezing round that last put it in touched_
    double reported_load = 0;         // last load given to the observer
  };
  struct Completion {
    sim::SimTime time;
    FlowId flow;
    std::uint32_t version;
  };

  double fraction_of(const FlowSlot& flow, std::uint32_t hop) const {
    return flow.fraction.empty() ? 1.0 : flow.fraction[hop];
  }
  void mark_dirty(LinkId l);
  void detach(FlowId f);
  // The re-rating of what changed (flow_network.cpp): the region of flows whose rates may move,
  // grown until every flow outside it provably keeps its rate.
  void rerate_changed(sim::SimTime now);
  void join(FlowId f);                      // into the region, remembering its rate before
  void join_components();                   // every flow that shares a link with the region, transitively
  void fill_region(bool whole_components);  // progressive filling, outside flows held fixed
  bool widen_region();                      // joins the outside flows whose bottleneck may have moved
  void credit(FlowSlot& flow, double rate, sim::SimTime now);
  void predict(FlowId f, sim::SimTime now);
  void report_loads(std::span<const LinkId> links, sim::SimTime now);
  // The selective update (flow_network.cpp): what an arrival or a departure changes, decided
  // from its own links when that is provably all it changes.
  double load_of(LinkId l) const;
  bool saturated(LinkId l) const;
  double fraction_on(const FlowSlot& flow, LinkId l) const;  // summed over the hops that cross l
  bool settle_arrival(FlowId f, sim::SimTime now);
  void settle_departure(const FlowSlot& flow);
  // The share heap: the component's links with unfrozen flows, least share first (ties by
  // link id), one entry per link, moved in place when its share changes.
  bool share_before(LinkId a, LinkId b) const {
    return links_[a].share != links_[b].share ? links_[a].share < links_[b].share : a < b;
  }
  void share_heap_place(std::uint32_t i, LinkId l) {
    share_heap_[i] = l;
    links_[l].heap_pos = i;
  }
  void share_heap_sift_down(std::uint32_t i);
  void share_heap_build();
  LinkId share_heap_pop();

  std::vector<LinkSlot> links_;
  std::vector<FlowSlot> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<LinkId> dirty_links_;
  std::vector<FlowId> arrivals_;         // added since the last update
  std::vector<LinkId> settled_links_;    // links whose load an arrival or departure changed
  std::vector<Completion> completions_;  // min-heap on (time, flow)
  std::vector<double> spare_per_unit_;   // settle_arrival: per hop, spare capacity per unit of the flow
  std::size_t active_ = 0;
  std::size_t active_spread_ = 0;  // active flows with fractions: 0 keeps the filling on plain counts
  std::uint32_t epoch_ = 0;
  // Scratch reused by every re-rating.
  std::vector<LinkId> comp_links_;
  std::vector<FlowId> comp_flows_;
  std::vector<LinkId> share_heap_;
  std::vector<LinkId> touched_;      // links whose share a freezing round changed
  std::vector<LinkId> bottlenecks_;  // the links that froze flows, in the order they did
  std::uint32_t link_epoch_ = 0;     // marks the region's links, anew at each filling
  std::uint32_t skip_regions_ = 0;   // re-ratings left that take whole components at once
  std::uint32_t region_backoff_ = 0;
  std::uint64_t round_ = 0;
  LoadObserver load_observer_;
  std::uint64_t updates_ = 0;
  std::uint64_t flow_rerates_ = 0;
  std::uint64_t local_settles_ = 0;
};

}  // namespace fathom::net
