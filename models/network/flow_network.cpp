#include "models/network/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fathom::net {

BeyondClock::BeyondClock(std::uint64_t flow, double remaining_bytes, double bytes_per_s, sim::SimTime now)
    : sim::TimeOutOfRange(now.to_seconds() + remaining_bytes / bytes_per_s),
      flow_(flow),
      remaining_bytes_(remaining_bytes),
      bytes_per_s_(bytes_per_s) {}

namespace {
// Min-heap orders for std::push_heap/pop_heap (which build max-heaps on `less`).
bool completes_later(const auto& a, const auto& b) { return a.time != b.time ? a.time > b.time : a.flow > b.flow; }
}  // namespace

FlowNetwork::FlowNetwork(std::vector<LinkCapacity> links) {
  links_.resize(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    const double c = links[i].bytes_per_s;
    if (!(c > 0) || !std::isfinite(c)) {
      throw std::invalid_argument("FlowNetwork: link " + std::to_string(i) + " has capacity " + std::to_string(c) +
                                  " B/s; capacities must be positive and finite");
    }
    links_[i].capacity = c;
  }
}

FlowId FlowNetwork::add_flow(std::span<const LinkId> route, double bytes, sim::SimTime now) {
  return add_flow(route, {}, bytes, now);
}

FlowId FlowNetwork::add_flow(std::span<const LinkId> route, std::span<const double> fractions, double bytes,
                             sim::SimTime now) {
  if (!(bytes >= 0) || !std::isfinite(bytes)) {
    throw std::invalid_argument("FlowNetwork::add_flow: a flow carries a finite, non-negative number of bytes, not " +
                                std::to_string(bytes));
  }
  for (LinkId l : route) {
    if (l >= links_.size()) {
      throw std::invalid_argument("FlowNetwork::add_flow: route names link " + std::to_string(l) + " of " +
                                  std::to_string(links_.size()));
    }
  }
  if (!fractions.empty()) {
    if (fractions.size() != route.size()) {
      throw std::invalid_argument("FlowNetwork::add_flow: " + std::to_string(fractions.size()) +
                                  " fractions for a route of " + std::to_string(route.size()) + " links");
    }
    for (double x : fractions) {
      if (!(x > 0) || !std::isfinite(x)) {
        throw std::invalid_argument("FlowNetwork::add_flow: a fraction of a flow's bytes is finite and > 0, not " +
                                    std::to_string(x));
      }
    }
  }
  FlowId f;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  FlowSlot& flow = flows_[f];
  flow.route.assign(route.begin(), route.end());
  flow.fraction.assign(fractions.begin(), fractions.end());
  flow.position.resize(route.size());
  flow.remaining = bytes;
  flow.rate = 0;
  flow.last_update = now;
  flow.active = true;
  flow.frozen = false;
  ++flow.version;
  ++active_;
  if (route.empty() || bytes == 0) {
    // Nothing to share: the bytes are there as soon as the flow starts.
    flow.finish = now;
    completions_.push_back({now, f, flow.version});
    std::push_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
    flow.route.clear();
    flow.fraction.clear();
    flow.position.clear();
    return f;
  }
  if (!flow.fraction.empty()) ++active_spread_;
  flow.finish = sim::SimTime::max();
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    LinkSlot& link = links_[flow.route[h]];
    flow.position[h] = static_cast<std::uint32_t>(link.flows.size());
    link.flows.emplace_back(f, h);
  }
  arrivals_.push_back(f);  // rated at the next update(), alone or with its component
  return f;
}

void FlowNetwork::mark_dirty(LinkId l) {
  if (!links_[l].dirty) {
    links_[l].dirty = true;
    dirty_links_.push_back(l);
  }
}

void FlowNetwork::detach(FlowId f) {
  FlowSlot& flow = flows_[f];
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    const LinkId l = flow.route[h];
    auto& list = links_[l].flows;
    const std::uint32_t i = flow.position[h];
    const auto moved = list.back();
    list[i] = moved;
    flows_[moved.first].position[moved.second] = i;
    list.pop_back();
  }
}

double FlowNetwork::load_of(LinkId l) const {
  double load = 0;
  for (const auto& [f, hop] : links_[l].flows) load += flows_[f].rate * fraction_of(flows_[f], hop);
  return load;
}

bool FlowNetwork::saturated(LinkId l) const { return load_of(l) >= links_[l].capacity * (1 - kSaturatedRel); }

double FlowNetwork::fraction_on(const FlowSlot& flow, LinkId l) const {
  double x = 0;
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    if (flow.route[h] == l) x += fraction_of(flow, h);
  }
  return x;
}

bool FlowNetwork::settle_arrival(FlowId f, sim::SimTime now) {
  FlowSlot& flow = flows_[f];
  for (LinkId l : flow.route) {
    if (links_[l].dirty) return false;  // its component is re-rated anyway
  }
  // The rate the flow can have without taking anything from anyone: the least spare capacity
  // on its route, per unit of the flow's bytes crossing the link.
  double rate = std::numeric_limits<double>::infinity();
  spare_per_unit_.clear();  // per hop, kept for the check below (a link's load is a sum over its flows)
  for (LinkId l : flow.route) {
    const double spare = links_[l].capacity - load_of(l);
    if (!(spare > links_[l].capacity * kSaturatedRel)) return false;  // a saturated link: shares move
    spare_per_unit_.push_back(spare / fraction_on(flow, l));
    rate = std::min(rate, spare_per_unit_.back());
  }
  // It is the max-min rate only if, on each link it saturates, no flow runs faster: that link is
  // then the flow's bottleneck, and every other flow keeps its own.
  const double ceiling = rate * (1 + kSaturatedRel);
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    if (spare_per_unit_[h] > ceiling) continue;
    for (const auto& [g, hop] : links_[flow.route[h]].flows) {
      if (flows_[g].rate > ceiling) return false;
    }
  }
  flow.rate = rate;
  predict(f, now);
  return true;
}

void FlowNetwork::settle_departure(const FlowSlot& flow) {
  // Called before the flow leaves its links. Its bandwidth goes to others only on a saturated
  // link that others cross: that link's component is re-rated. Elsewhere the flow had spare
  // capacity around it, and no other flow's bottleneck changes.
  for (LinkId l : flow.route) {
    const LinkSlot& link = links_[l];
    if (!link.dirty && link.flows.size() > 1 && saturated(l)) mark_dirty(l);
  }
}

void FlowNetwork::credit(FlowSlot& flow, double rate, sim::SimTime now) {
  const double progress = std::min(flow.remaining, rate * static_cast<double>((now - flow.last_update).ns()) * 1e-9);
  if (progress > 0) {
    flow.remaining -= progress;
    for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
      links_[flow.route[h]].bytes_carried += progress * fraction_of(flow, h);
    }
  }
  flow.last_update = now;
}

void FlowNetwork::update(sim::SimTime now) {
  // Arrivals in the order they came: each one either takes spare capacity without moving any
  // other flow (exact: the result satisfies max-min's bottleneck condition), or marks its links
  // for the re-rating below. Departures marked theirs when they left (settle_departure).
  for (FlowId f : arrivals_) {
    if (!flows_[f].active) continue;
    if (settle_arrival(f, now)) {
      ++local_settles_;
      for (LinkId l : flows_[f].route) settled_links_.push_back(l);
    } else {
      for (LinkId l : flows_[f].route) mark_dirty(l);
    }
  }
  arrivals_.clear();
  if (!dirty_links_.empty()) rerate_changed(now);
  dirty_links_.clear();
  report_loads(settled_links_, now);
  settled_links_.clear();
}

void FlowNetwork::join(FlowId f) {
  FlowSlot& flow = flows_[f];
  if (flow.mark == epoch_) return;
  flow.mark = epoch_;
  flow.previous_rate = flow.rate;
  comp_flows_.push_back(f);
}

void FlowNetwork::rerate_changed(sim::SimTime now) {
  // The region starts as the flows on the changed links. Its rates are recomputed with every
  // other flow held at its rate; then the flows whose bottleneck that may have moved join, and
  // the region is recomputed, until none does. Each outside flow then still has a saturated
  // link where it runs fastest, and each region flow has one too: the max-min allocation. A
  // region that keeps growing is widened at once to its connected components, which need no
  // check (no outside flow shares their links).
  ++epoch_;
  comp_flows_.clear();
  for (LinkId l : dirty_links_) {
    links_[l].dirty = false;
    for (const auto& [f, hop] : links_[l].flows) join(f);
  }
  if (comp_flows_.empty()) {
    report_loads(dirty_links_, now);  // the links just went idle
    return;
  }
  // Where regions keep growing into whole components (dense traffic: an all-to-all), trying
  // costs more than it saves: after a region that had to be widened to its components, the
  // next 1, 2, 4, ... up to 64 re-ratings take their components at once.
  if (skip_regions_ > 0) {
    --skip_regions_;
    join_components();
    fill_region(true);
  } else {
    for (int pass = 0;; ++pass) {
      fill_region(false);
      const std::size_t before = comp_flows_.size();
      if (!widen_region()) {
        region_backoff_ = 0;
        break;
      }
      if (pass == 2 || comp_flows_.size() > 2 * before) {
        join_components();
        fill_region(true);
        skip_regions_ = region_backoff_;
        region_backoff_ = std::min<std::uint32_t>(64, 2 * region_backoff_ + 1);
        break;
      }
    }
  }
  ++updates_;
  flow_rerates_ += comp_flows_.size();

  // New predicted completions for the flows whose rate changed; a flow whose rate came out the
  // same keeps its progress uncredited and its prediction, which is still exact. Once stale
  // heap entries outnumber live ones the heap is rebuilt from the live ones: popping them one
  // by one would cost a log each, the rebuild is linear.
  for (FlowId f : comp_flows_) {
    FlowSlot& flow = flows_[f];
    if (flow.rate == flow.previous_rate) continue;
    credit(flow, flow.previous_rate, now);
    predict(f, now);
  }
  report_loads(comp_links_, now);
  if (completions_.size() > 2 * active_ + 1024) {
    std::erase_if(completions_, [&](const Completion& c) {
      const FlowSlot& flow = flows_[c.flow];
      return !flow.active || flow.version != c.version;
    });
    std::make_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
  }
}

void FlowNetwork::join_components() {
  // Every flow reachable from the region through shared links, and their links; each link is
  // visited once.
  ++link_epoch_;
  comp_links_.clear();
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    for (LinkId l : flows_[comp_flows_[i]].route) {
      if (links_[l].mark == link_epoch_) continue;
      links_[l].mark = link_epoch_;
      comp_links_.push_back(l);
      for (const auto& [g, hop] : links_[l].flows) join(g);
    }
  }
}

void FlowNetwork::fill_region(bool whole_components) {
  // The region's links (join_components() listed them already for whole components), each
  // with the capacity its outside flows leave.
  if (!whole_components) {
    ++link_epoch_;
    comp_links_.clear();
  }
  for (FlowId f : comp_flows_) {
    flows_[f].frozen = false;
    if (whole_components) continue;
    for (LinkId l : flows_[f].route) {
      if (links_[l].mark != link_epoch_) {
        links_[l].mark = link_epoch_;
        comp_links_.push_back(l);
      }
    }
  }
  // Progressive filling over the region's flows: the link with the least fair share fixes the
  // rate of all its unfrozen flows; their shares leave every link they cross; repeat. A link's
  // fair share is its capacity left over the sum of its unfrozen flows' fractions (their count
  // when no flow is spread). Freezing a flow at the least share can only raise the share of the
  // other links it crosses, so a link's heap entry only ever moves down.
  share_heap_.clear();
  for (LinkId l : comp_links_) {
    LinkSlot& link = links_[l];
    if (whole_components && active_spread_ == 0) {
      // Every flow of the link is in the region, each counting 1.
      link.unfrozen = static_cast<std::uint32_t>(link.flows.size());
      link.unfrozen_fraction = static_cast<double>(link.unfrozen);
      link.cap_left = link.capacity;
    } else {
      double outside = 0;
      link.unfrozen = 0;
      link.unfrozen_fraction = 0;
      for (const auto& [f, hop] : link.flows) {
        const FlowSlot& flow = flows_[f];
        if (flow.mark == epoch_) {
          ++link.unfrozen;
          link.unfrozen_fraction += fraction_of(flow, hop);
        } else {
          outside += flow.rate * fraction_of(flow, hop);
        }
      }
      link.cap_left = std::max(0.0, link.capacity - outside);
    }
    if (link.unfrozen > 0) {
      link.share = link.cap_left / link.unfrozen_fraction;
      share_heap_.push_back(l);
    }
  }
  share_heap_build();
  bottlenecks_.clear();
  while (!share_heap_.empty()) {
    const LinkId top = share_heap_pop();
    LinkSlot& bottleneck = links_[top];
    const double share = bottleneck.share;
    bottlenecks_.push_back(top);
    touched_.clear();
    ++round_;
    for (const auto& [f, hop] : bottleneck.flows) {
      FlowSlot& flow = flows_[f];
      if (flow.mark != epoch_ || flow.frozen) continue;
      flow.frozen = true;
      flow.rate = share;
      for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
        const LinkId m = flow.route[h];
        LinkSlot& link = links_[m];
        const double x = fraction_of(flow, h);
        link.cap_left = std::max(0.0, link.cap_left - share * x);
        --link.unfrozen;
        link.unfrozen_fraction = link.unfrozen == 0 ? 0.0 : link.unfrozen_fraction - x;
        if (link.touched_round != round_ && m != top) {
          link.touched_round = round_;
          touched_.push_back(m);
        }
      }
    }
    // Each link whose share changed moves once, however many of its flows froze.
    for (LinkId m : touched_) {
      LinkSlot& link = links_[m];
      if (link.unfrozen > 0) {
        if (!(link.unfrozen_fraction > 0)) {
          // Rounding ate the sum of small fractions: add up the unfrozen flows' fractions again.
          link.unfrozen_fraction = 0;
          for (const auto& [f, hop] : link.flows) {
            if (flows_[f].mark == epoch_ && !flows_[f].frozen) link.unfrozen_fraction += fraction_of(flows_[f], hop);
          }
        }
        link.share = link.cap_left / link.unfrozen_fraction;
      } else {
        link.share = std::numeric_limits<double>::infinity();  // done: sinks out of the way
      }
      share_heap_sift_down(link.heap_pos);
    }
    while (!share_heap_.empty() && links_[share_heap_.front()].unfrozen == 0) share_heap_pop();
  }
}

bool FlowNetwork::widen_region() {
  const std::size_t before = comp_flows_.size();
  // 1. A region flow's bottleneck must not carry a faster outside flow: max-min would slow that
  // one down to share. Every region flow frozen on a link runs at that link's share.
  for (LinkId b : bottlenecks_) {
    const double ceiling = links_[b].share * (1 + kSaturatedRel);
    for (const auto& [g, hop] : links_[b].flows) {
      if (flows_[g].rate > ceiling) join(g);
    }
  }
  // 2. An outside flow whose bottleneck was a region link (saturated before, with no faster
  // flow) keeps it only if the link is still saturated and no region flow there now runs
  // faster. Only the fastest outside flows of a link can have had it as their bottleneck; they
  // join when the link was one and may be no longer.
  for (LinkId l : comp_links_) {
    const LinkSlot& link = links_[l];
    double load_before = 0, load = 0, fastest_inside_before = 0, fastest_inside = 0, fastest_outside = 0;
    for (const auto& [f, hop] : link.flows) {
      const FlowSlot& flow = flows_[f];
      const double x = fraction_of(flow, hop);
      load += flow.rate * x;
      if (flow.mark == epoch_) {
        load_before += flow.previous_rate * x;
        fastest_inside_before = std::max(fastest_inside_before, flow.previous_rate);
        fastest_inside = std::max(fastest_inside, flow.rate);
      } else {
        load_before += flow.rate * x;
        fastest_outside = std::max(fastest_outside, flow.rate);
      }
    }
    if (fastest_outside == 0) continue;
    const double saturation = link.capacity * (1 - kSaturatedRel);
    const bool was_bottleneck =
        load_before >= saturation && fastest_outside >= fastest_inside_before * (1 - kSaturatedRel);
    const bool still_bottleneck = load >= saturation && fastest_inside <= fastest_outside * (1 + kSaturatedRel);
    if (!was_bottleneck || still_bottleneck) continue;
    for (const auto& [g, hop] : link.flows) {
      if (flows_[g].mark != epoch_ && flows_[g].rate >= fastest_outside * (1 - kSaturatedRel)) join(g);
    }
  }
  return comp_flows_.size() > before;
}

void FlowNetwork::share_heap_sift_down(std::uint32_t i) {
  const LinkId moving = share_heap_[i];
  const auto size = static_cast<std::uint32_t>(share_heap_.size());
  for (;;) {
    std::uint32_t child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && share_before(share_heap_[child + 1], share_heap_[child])) ++child;
    if (!share_before(share_heap_[child], moving)) break;
    share_heap_place(i, share_heap_[child]);
    i = child;
  }
  share_heap_place(i, moving);
}

void FlowNetwork::share_heap_build() {
  for (std::uint32_t i = 0; i < share_heap_.size(); ++i) links_[share_heap_[i]].heap_pos = i;
  for (auto i = static_cast<std::uint32_t>(share_heap_.size() / 2); i-- > 0;) share_heap_sift_down(i);
}

LinkId FlowNetwork::share_heap_pop() {
  const LinkId top = share_heap_.front();
  const LinkId last = share_heap_.back();
  share_heap_.pop_back();
  if (!share_heap_.empty() && last != top) {
    share_heap_place(0, last);
    share_heap_sift_down(0);
  }
  return top;
}

void FlowNetwork::predict(FlowId f, sim::SimTime now) {
  FlowSlot& flow = flows_[f];
  ++flow.version;
  if (flow.rate > 0) {
    // Round up: a flow is never reported done before its last byte could have arrived.
    const double ns = std::ceil(flow.remaining / flow.rate * 1e9);
    if (!(ns < static_cast<double>((sim::SimTime::max() - now).ns())))
      throw BeyondClock(f, flow.remaining, flow.rate, now);
    flow.finish = now + sim::SimTime::from_ns(static_cast<std::int64_t>(ns));
  } else {
    flow.finish = flow.remaining > 0 ? sim::SimTime::max() : now;
  }
  if (flow.finish != sim::SimTime::max()) {
    completions_.push_back({flow.finish, f, flow.version});
    std::push_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
  }
}

sim::SimTime FlowNetwork::next_completion() {
  while (!completions_.empty()) {
    const Completion& top = completions_.front();
    const FlowSlot& flow = flows_[top.flow];
    if (flow.active && flow.version == top.version) return top.time;
    std::pop_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
    completions_.pop_back();
  }
  return sim::SimTime::max();
}

bool FlowNetwork::pop_completed(sim::SimTime now, FlowId& out) {
  if (next_completion() > now) return false;
  const Completion top = completions_.front();
  std::pop_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
  completions_.pop_back();
  FlowSlot& flow = flows_[top.flow];
  credit(flow, flow.rate, now);
  // What rounding left over was carried too: per-link totals equal the flows' bytes.
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    links_[flow.route[h]].bytes_carried += flow.remaining * fraction_of(flow, h);
  }
  flow.remaining = 0;
  settle_departure(flow);
  detach(top.flow);
  for (LinkId l : flow.route) settled_links_.push_back(l);
  if (!flow.fraction.empty()) --active_spread_;
  flow.active = false;
  flow.rate = 0;
  ++flow.version;
  --active_;
  free_flows_.push_back(top.flow);
  out = top.flow;
  return true;
}

void FlowNetwork::report_loads(std::span<const LinkId> links, sim::SimTime now) {
  if (!load_observer_) return;
  for (LinkId l : links) {
    const double load = link_load_bytes_per_s(l);
    if (load != links_[l].reported_load) {
      links_[l].reported_load = load;
      load_observer_(l, now, load);
    }
  }
}

double FlowNetwork::link_load_bytes_per_s(LinkId l) const {
  (void)links_.at(l);  // range check
  return load_of(l);
}

}  // namespace fathom::net
