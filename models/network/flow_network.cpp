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
bool shares_more(const auto& a, const auto& b) { return a.share != b.share ? a.share > b.share : a.link > b.link; }
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
    mark_dirty(flow.route[h]);
  }
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
    mark_dirty(l);
  }
}

void FlowNetwork::credit(FlowSlot& flow, sim::SimTime now) {
  const double progress =
      std::min(flow.remaining, flow.rate * static_cast<double>((now - flow.last_update).ns()) * 1e-9);
  if (progress > 0) {
    flow.remaining -= progress;
    for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
      links_[flow.route[h]].bytes_carried += progress * fraction_of(flow, h);
    }
  }
  flow.last_update = now;
}

void FlowNetwork::update(sim::SimTime now) {
  for (std::size_t i = 0; i < dirty_links_.size(); ++i) {
    if (links_[dirty_links_[i]].dirty) rerate_component(dirty_links_[i], now);
  }
  dirty_links_.clear();
}

void FlowNetwork::rerate_component(LinkId seed, sim::SimTime now) {
  // 1. The component: links and flows reachable from `seed` through shared links.
  ++epoch_;
  comp_links_.clear();
  comp_flows_.clear();
  comp_links_.push_back(seed);
  links_[seed].mark = epoch_;
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    LinkSlot& link = links_[comp_links_[i]];
    link.dirty = false;
    for (const auto& [f, hop] : link.flows) {
      FlowSlot& flow = flows_[f];
      if (flow.mark == epoch_) continue;
      flow.mark = epoch_;
      comp_flows_.push_back(f);
      for (LinkId m : flow.route) {
        if (links_[m].mark != epoch_) {
          links_[m].mark = epoch_;
          comp_links_.push_back(m);
        }
      }
    }
  }
  if (comp_flows_.empty()) {
    report_loads(now);  // the seed link just went idle
    return;
  }
  ++updates_;
  flow_rerates_ += comp_flows_.size();

  // 2. Credit every flow its progress at the old rates.
  for (FlowId f : comp_flows_) {
    credit(flows_[f], now);
    flows_[f].frozen = false;
  }

  // 3. Progressive filling: the link with the least fair share fixes the rate of all its
  // unfrozen flows; their shares leave every link they cross; repeat. Stale heap entries
  // (a link whose share changed since) are skipped by version. A link's fair share is its
  // capacity left over the sum of its unfrozen flows' fractions (their count when no flow is
  // spread).
  shares_.clear();
  for (LinkId l : comp_links_) {
    LinkSlot& link = links_[l];
    link.cap_left = link.capacity;
    link.unfrozen = static_cast<std::uint32_t>(link.flows.size());
    link.unfrozen_fraction = static_cast<double>(link.unfrozen);
    if (active_spread_ > 0) {
      link.unfrozen_fraction = 0;
      for (const auto& [f, hop] : link.flows) link.unfrozen_fraction += fraction_of(flows_[f], hop);
    }
    ++link.version;
    if (link.unfrozen > 0) shares_.push_back({link.cap_left / link.unfrozen_fraction, l, link.version});
  }
  std::make_heap(shares_.begin(), shares_.end(), shares_more<Share, Share>);
  while (!shares_.empty()) {
    std::pop_heap(shares_.begin(), shares_.end(), shares_more<Share, Share>);
    const Share top = shares_.back();
    shares_.pop_back();
    LinkSlot& bottleneck = links_[top.link];
    if (top.version != bottleneck.version || bottleneck.unfrozen == 0) continue;
    const double share = top.share;
    touched_.clear();
    ++round_;
    for (const auto& [f, hop] : bottleneck.flows) {
      FlowSlot& flow = flows_[f];
      if (flow.frozen) continue;
      flow.frozen = true;
      flow.rate = share;
      for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
        const LinkId m = flow.route[h];
        LinkSlot& link = links_[m];
        const double x = fraction_of(flow, h);
        link.cap_left = std::max(0.0, link.cap_left - share * x);
        --link.unfrozen;
        link.unfrozen_fraction = link.unfrozen == 0 ? 0.0 : link.unfrozen_fraction - x;
        if (link.touched_round != round_) {
          link.touched_round = round_;
          touched_.push_back(m);
        }
      }
    }
    // One new heap entry per link whose share changed, not one per frozen flow.
    for (LinkId m : touched_) {
      LinkSlot& link = links_[m];
      ++link.version;
      if (link.unfrozen > 0) {
        if (!(link.unfrozen_fraction > 0)) {
          // Rounding ate the sum of small fractions: add up the unfrozen flows' fractions again.
          link.unfrozen_fraction = 0;
          for (const auto& [f, hop] : link.flows) {
            if (!flows_[f].frozen) link.unfrozen_fraction += fraction_of(flows_[f], hop);
          }
        }
        shares_.push_back({link.cap_left / link.unfrozen_fraction, m, link.version});
        std::push_heap(shares_.begin(), shares_.end(), shares_more<Share, Share>);
      }
    }
  }

  // 4. New predicted completions. Every re-rating invalidates the heap entries of the
  // whole component, so once stale entries outnumber live ones the heap is rebuilt from
  // the live ones: popping them one by one would cost a log each, the rebuild is linear.
  for (FlowId f : comp_flows_) predict(f, now);
  report_loads(now);
  if (completions_.size() > 2 * active_ + 1024) {
    std::erase_if(completions_, [&](const Completion& c) {
      const FlowSlot& flow = flows_[c.flow];
      return !flow.active || flow.version != c.version;
    });
    std::make_heap(completions_.begin(), completions_.end(), completes_later<Completion, Completion>);
  }
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
  credit(flow, now);
  // What rounding left over was carried too: per-link totals equal the flows' bytes.
  for (std::uint32_t h = 0; h < flow.route.size(); ++h) {
    links_[flow.route[h]].bytes_carried += flow.remaining * fraction_of(flow, h);
  }
  flow.remaining = 0;
  detach(top.flow);
  if (!flow.fraction.empty()) --active_spread_;
  flow.active = false;
  flow.rate = 0;
  ++flow.version;
  --active_;
  free_flows_.push_back(top.flow);
  out = top.flow;
  return true;
}

void FlowNetwork::report_loads(sim::SimTime now) {
  if (!load_observer_) return;
  for (LinkId l : comp_links_) {
    const double load = link_load_bytes_per_s(l);
    if (load != links_[l].reported_load) {
      links_[l].reported_load = load;
      load_observer_(l, now, load);
    }
  }
}

double FlowNetwork::link_load_bytes_per_s(LinkId l) const {
  double load = 0;
  for (const auto& [f, hop] : links_.at(l).flows) load += flows_[f].rate * fraction_of(flows_[f], hop);
  return load;
}

}  // namespace fathom::net
