// A reference implementation of the flow-level network model, for tests only: max-min fair
// bandwidth sharing (SimGrid's CM02 without its TCP factors) and a plain event loop that
// moves flows through it. It shares no code with models/network/; the model's tests compare
// against it. It is written to be obviously correct, not fast: every rate is recomputed from
// scratch at every event.
//
// The model
//   * Links are directed and have a capacity in bytes/s (finite, > 0) and a latency in seconds
//     (finite, >= 0). Links are numbered 0..capacity.size()-1.
//   * A flow has a route (link ids, possibly empty), a size in bytes and a start time. Its
//     latency is the sum of its links' latencies (a link listed twice counts twice; a link
//     with a fraction counts that fraction of its latency: a spread flow waits its mean path's).
//   * From start to start + latency a flow waits and uses no bandwidth. Then it is active and
//     moves its bytes at its max-min fair rate among the active flows.
//   * Rates are the plain, unweighted max-min fair allocation (progressive filling), recomputed
//     whenever a flow becomes active or finishes.
//   * A flow spread over several paths gives each link of its route a fraction (> 0): the part of
//     its bytes that crosses it. At rate r it uses fraction * r of the link, and in progressive
//     filling it counts `fraction` times there. No fractions (an empty list) means 1 everywhere.
//
// Edge cases (the semantics chosen here; the model must match them)
//   * A flow that lists a link k times counts k times on that link: at rate r it uses k*r of the
//     link's capacity, and in progressive filling it is k of the link's "flows".
//   * A flow with an empty route crosses no link, so nothing limits its bandwidth: its rate is
//     +infinity, its latency is 0 and it finishes at its start time, whatever its size.
//   * A flow of zero bytes finishes the moment it becomes active, at start + latency, and never
//     takes part in the sharing.
//   * Flows that finish at the same instant all finish at that instant: at each event a flow is
//     finished when its computed completion time is the event's time or its remaining bytes are
//     within kSimultaneousRelEps (relative to its size) of zero.
//   * Bad input (a link id out of range, a capacity that is not finite and positive, a negative
//     or non-finite latency, size or start, mismatched vector sizes) throws
//     std::invalid_argument.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fathom::test {

namespace reference_detail {

inline void validate_network(const std::vector<double>& capacity,
                             const std::vector<std::vector<std::uint32_t>>& routes) {
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    if (!std::isfinite(capacity[l]) || capacity[l] <= 0.0) {
      throw std::invalid_argument("reference_maxmin: capacity of link " + std::to_string(l) +
                                  " is not finite and positive");
    }
  }
  for (std::size_t f = 0; f < routes.size(); ++f) {
    for (std::uint32_t l : routes[f]) {
      if (l >= capacity.size()) {
        throw std::invalid_argument("reference_maxmin: flow " + std::to_string(f) + " crosses link " +
                                    std::to_string(l) + ", out of range");
      }
    }
  }
}

inline void validate_fractions(const std::vector<std::vector<std::uint32_t>>& routes,
                               const std::vector<std::vector<double>>& fractions) {
  if (fractions.empty()) return;
  if (fractions.size() != routes.size()) throw std::invalid_argument("reference_maxmin: one fraction list per flow");
  for (std::size_t f = 0; f < routes.size(); ++f) {
    if (fractions[f].empty()) continue;
    if (fractions[f].size() != routes[f].size()) {
      throw std::invalid_argument("reference_maxmin: flow " + std::to_string(f) + " has " +
                                  std::to_string(fractions[f].size()) + " fractions for " +
                                  std::to_string(routes[f].size()) + " links");
    }
    for (double x : fractions[f]) {
      if (!std::isfinite(x) || x <= 0.0) {
        throw std::invalid_argument("reference_maxmin: flow " + std::to_string(f) + " has a fraction that is not > 0");
      }
    }
  }
}

// The part of flow f's bytes on the h-th link of its route.
inline double fraction(const std::vector<std::vector<double>>& fractions, std::size_t f, std::size_t h) {
  return fractions.empty() || fractions[f].empty() ? 1.0 : fractions[f][h];
}

inline std::string num(double x) {
  std::ostringstream out;
  out.precision(17);
  out << x;
  return out.str();
}

}  // namespace reference_detail

// Max-min fair rates (bytes/s) of flows that are all active at once, by progressive filling:
// repeatedly take the link with the smallest fair share (remaining capacity / number of unfrozen
// flows crossing it, a flow crossing it k times counting k times), freeze every unfrozen flow
// crossing that link at that share, subtract what they use from every link they cross, and
// repeat until every flow is frozen. Links tied for the smallest share are all taken in the same
// round. A flow with an empty route gets +infinity. With `fractions`, "number of flows" reads
// "sum of the flows' fractions" and a flow uses fraction * rate of each link.
inline std::vector<double> maxmin_rates(const std::vector<double>& capacity_bytes_per_s,
                                        const std::vector<std::vector<std::uint32_t>>& routes,
                                        const std::vector<std::vector<double>>& fractions = {}) {
  reference_detail::validate_network(capacity_bytes_per_s, routes);
  reference_detail::validate_fractions(routes, fractions);
  using reference_detail::fraction;
  const std::size_t num_links = capacity_bytes_per_s.size();
  const std::size_t num_flows = routes.size();

  std::vector<double> rate(num_flows, 0.0);
  std::vector<bool> frozen(num_flows, false);
  std::vector<double> remaining = capacity_bytes_per_s;

  std::size_t unfrozen = 0;
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (routes[f].empty()) {
      rate[f] = std::numeric_limits<double>::infinity();
      frozen[f] = true;
    } else {
      ++unfrozen;
    }
  }

  while (unfrozen > 0) {
    // How many unfrozen flows cross each link (with multiplicity, weighted by fraction).
    std::vector<double> count(num_links, 0.0);
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (frozen[f]) continue;
      for (std::size_t h = 0; h < routes[f].size(); ++h) count[routes[f][h]] += fraction(fractions, f, h);
    }

    // The smallest fair share over the links that unfrozen flows cross.
    double smallest = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < num_links; ++l) {
      if (count[l] == 0) continue;
      smallest = std::min(smallest, remaining[l] / count[l]);
    }

    // Freeze the flows on every link whose share is that smallest one.
    std::vector<bool> bottleneck(num_links, false);
    for (std::size_t l = 0; l < num_links; ++l) {
      if (count[l] > 0 && remaining[l] / count[l] == smallest) bottleneck[l] = true;
    }
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (frozen[f]) continue;
      bool on_bottleneck = false;
      for (std::uint32_t l : routes[f]) on_bottleneck = on_bottleneck || bottleneck[l];
      if (!on_bottleneck) continue;
      frozen[f] = true;
      --unfrozen;
      rate[f] = smallest;
      for (std::size_t h = 0; h < routes[f].size(); ++h) {
        const std::uint32_t l = routes[f][h];
        remaining[l] = std::max(0.0, remaining[l] - smallest * fraction(fractions, f, h));
      }
    }
  }
  return rate;
}

// A second, independent max-min algorithm, for cross-checking maxmin_rates on small instances:
// water-filling by bisection. It knows only how to ask "is this allocation feasible?" (every
// link's load, summed from scratch, within its capacity). Each round it raises a common water
// level L for all unfrozen flows (frozen flows keep their rates), finds by bisection the highest
// feasible L to the last bit of a double, then freezes at L every unfrozen flow crossing a link
// that is infeasible at L * (1 + 1e-11) (a saturated link). At least one link is: the bisection
// keeps an infeasible upper end a bit above L and the load only grows with L. A flow with an
// empty route gets +infinity. `fractions` as for maxmin_rates.
inline std::vector<double> brute_force_maxmin(const std::vector<double>& capacity,
                                              const std::vector<std::vector<std::uint32_t>>& routes,
                                              const std::vector<std::vector<double>>& fractions = {}) {
  reference_detail::validate_network(capacity, routes);
  reference_detail::validate_fractions(routes, fractions);
  using reference_detail::fraction;
  const std::size_t num_links = capacity.size();
  const std::size_t num_flows = routes.size();

  std::vector<double> rate(num_flows, 0.0);
  std::vector<bool> frozen(num_flows, false);
  bool any_unfrozen = false;
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (routes[f].empty()) {
      rate[f] = std::numeric_limits<double>::infinity();
      frozen[f] = true;
    } else {
      any_unfrozen = true;
    }
  }
  if (!any_unfrozen) return rate;

  // Every link's load when the unfrozen flows run at `level`.
  auto loads_at = [&](double level) {
    std::vector<double> load(num_links, 0.0);
    for (std::size_t f = 0; f < num_flows; ++f) {
      const double r = frozen[f] ? rate[f] : level;
      for (std::size_t h = 0; h < routes[f].size(); ++h) load[routes[f][h]] += r * fraction(fractions, f, h);
    }
    return load;
  };
  auto feasible_at = [&](double level) {
    const std::vector<double> load = loads_at(level);
    for (std::size_t l = 0; l < num_links; ++l) {
      if (load[l] > capacity[l]) return false;
    }
    return true;
  };

  // Infeasible for any unfrozen flow: it alone puts more than any capacity on its first link
  // (its fraction there counted).
  double smallest_fraction = 1.0;
  for (std::size_t f = 0; f < num_flows; ++f) {
    for (std::size_t h = 0; h < routes[f].size(); ++h) {
      smallest_fraction = std::min(smallest_fraction, fraction(fractions, f, h));
    }
  }
  const double too_high = 2.0 * *std::max_element(capacity.begin(), capacity.end()) / smallest_fraction;
  double level = 0.0;  // feasible: the previous round's level (all rates 0 at first)
  while (any_unfrozen) {
    double lo = level;
    double hi = too_high;
    while (true) {
      const double mid = lo + (hi - lo) / 2.0;
      if (mid <= lo || mid >= hi) break;
      if (feasible_at(mid)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    level = lo;

    const std::vector<double> probe = loads_at(std::max(hi, level * (1.0 + 1e-11)));
    std::vector<bool> saturated(num_links, false);
    for (std::size_t l = 0; l < num_links; ++l) saturated[l] = probe[l] > capacity[l];

    any_unfrozen = false;
    std::vector<bool> freeze_now(num_flows, false);
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (frozen[f]) continue;
      for (std::uint32_t l : routes[f]) freeze_now[f] = freeze_now[f] || saturated[l];
    }
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (freeze_now[f]) {
        frozen[f] = true;
        rate[f] = level;
      }
      any_unfrozen = any_unfrozen || !frozen[f];
    }
  }
  return rate;
}

struct MaxMinCheck {
  bool ok;
  std::string why;  // empty when ok; otherwise the first violation found
};

// Checks that `rates` is the max-min fair allocation, by its characterisation: it is feasible
// and every flow has a bottleneck. With a relative tolerance rel_tol:
//   (a) no link is over capacity: sum over the flows crossing it of rate (times the number of
//       times the flow crosses it, times its fraction there) <= capacity * (1 + rel_tol);
//   (b) every flow with a non-empty route has a bottleneck: a link on its route whose load is
//       >= capacity * (1 - rel_tol) and on which its rate is >= (1 - rel_tol) times the largest
//       rate among the flows crossing it;
//   (c) every flow with a non-empty route has a finite rate > 0.
// A flow with an empty route crosses no link; it must only have a rate > 0 (+infinity is what
// the reference gives it). Sizes must match and link ids be in range (else it fails, not throws).
inline MaxMinCheck check_maxmin_invariants(const std::vector<double>& capacity,
                                           const std::vector<std::vector<std::uint32_t>>& routes,
                                           const std::vector<double>& rates, double rel_tol,
                                           const std::vector<std::vector<double>>& fractions = {}) {
  using reference_detail::fraction;
  using reference_detail::num;
  const std::size_t num_links = capacity.size();
  const std::size_t num_flows = routes.size();
  if (rates.size() != num_flows) {
    return {false, "there are " + std::to_string(rates.size()) + " rates for " + std::to_string(num_flows) + " flows"};
  }
  for (std::size_t f = 0; f < num_flows; ++f) {
    for (std::uint32_t l : routes[f]) {
      if (l >= num_links) {
        return {false, "flow " + std::to_string(f) + " crosses link " + std::to_string(l) + ", out of range"};
      }
    }
  }

  // (c)
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (std::isnan(rates[f]) || !(rates[f] > 0.0)) {
      return {false, "(c) flow " + std::to_string(f) + " has rate " + num(rates[f]) + ", not > 0"};
    }
    if (!routes[f].empty() && !std::isfinite(rates[f])) {
      return {false, "(c) flow " + std::to_string(f) + " crosses links but has rate " + num(rates[f])};
    }
  }

  // (a)
  std::vector<double> load(num_links, 0.0);
  std::vector<double> largest(num_links, 0.0);
  for (std::size_t f = 0; f < num_flows; ++f) {
    for (std::size_t h = 0; h < routes[f].size(); ++h) {
      const std::uint32_t l = routes[f][h];
      load[l] += rates[f] * fraction(fractions, f, h);
      largest[l] = std::max(largest[l], rates[f]);
    }
  }
  for (std::size_t l = 0; l < num_links; ++l) {
    if (load[l] > capacity[l] * (1.0 + rel_tol)) {
      return {false, "(a) link " + std::to_string(l) + " carries " + num(load[l]) + " > capacity " + num(capacity[l])};
    }
  }

  // (b)
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (routes[f].empty()) continue;
    bool has_bottleneck = false;
    for (std::uint32_t l : routes[f]) {
      const bool saturated = load[l] >= capacity[l] * (1.0 - rel_tol);
      const bool largest_here = rates[f] >= largest[l] * (1.0 - rel_tol);
      has_bottleneck = has_bottleneck || (saturated && largest_here);
    }
    if (!has_bottleneck) {
      std::string why = "(b) flow " + std::to_string(f) + " (rate " + num(rates[f]) + ") has no bottleneck; its links:";
      for (std::uint32_t l : routes[f]) {
        why += " [link " + std::to_string(l) + " load " + num(load[l]) + " capacity " + num(capacity[l]) +
               " largest rate " + num(largest[l]) + "]";
      }
      return {false, why};
    }
  }
  return {true, ""};
}

struct RefFlow {
  std::vector<std::uint32_t> route;
  double bytes;
  double start_s;
  std::vector<double> fractions = {};  // per route link; empty: 1 everywhere
};

// A flow whose remaining bytes are within this fraction of its size finishes at the current event.
inline constexpr double kSimultaneousRelEps = 1e-12;

// Each flow's finish time in seconds, by a plain event loop in continuous time. At every event
// (a flow becoming active, or finishing) it recomputes every active flow's rate from scratch with
// maxmin_rates, moves to the earliest next event (an activation at start + latency, or an
// active flow's completion at now + remaining / rate), takes rate * dt off every active flow's
// remaining bytes, finishes the flows that are done (see kSimultaneousRelEps) and activates the
// flows whose time has come. See the top of this file for empty routes and zero sizes.
inline std::vector<double> simulate_flows(const std::vector<double>& capacity, const std::vector<double>& latency_s,
                                          const std::vector<RefFlow>& flows) {
  const std::size_t num_flows = flows.size();
  std::vector<std::vector<std::uint32_t>> routes(num_flows);
  std::vector<std::vector<double>> fractions(num_flows);
  for (std::size_t f = 0; f < num_flows; ++f) {
    routes[f] = flows[f].route;
    fractions[f] = flows[f].fractions;
  }
  reference_detail::validate_network(capacity, routes);
  reference_detail::validate_fractions(routes, fractions);
  if (latency_s.size() != capacity.size()) {
    throw std::invalid_argument("simulate_flows: latency_s and capacity have different sizes");
  }
  for (std::size_t l = 0; l < latency_s.size(); ++l) {
    if (!std::isfinite(latency_s[l]) || latency_s[l] < 0.0) {
      throw std::invalid_argument("simulate_flows: latency of link " + std::to_string(l) +
                                  " is not finite and non-negative");
    }
  }
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (!std::isfinite(flows[f].bytes) || flows[f].bytes < 0.0 || !std::isfinite(flows[f].start_s)) {
      throw std::invalid_argument("simulate_flows: flow " + std::to_string(f) + " has a bad size or start");
    }
  }

  enum class Phase { kWaiting, kActive, kDone };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Phase> phase(num_flows, Phase::kWaiting);
  std::vector<double> activation(num_flows);
  std::vector<double> remaining(num_flows);
  std::vector<double> finish(num_flows, std::numeric_limits<double>::quiet_NaN());

  for (std::size_t f = 0; f < num_flows; ++f) {
    double latency = 0.0;
    for (std::size_t h = 0; h < flows[f].route.size(); ++h) {
      latency += latency_s[flows[f].route[h]] * reference_detail::fraction(fractions, f, h);
    }
    activation[f] = flows[f].start_s + latency;
    remaining[f] = flows[f].bytes;
    if (flows[f].route.empty() || flows[f].bytes == 0.0) {
      // Nothing to share: done as soon as it is active (an empty route has zero latency).
      finish[f] = activation[f];
      phase[f] = Phase::kDone;
    }
  }

  double now = inf;
  for (std::size_t f = 0; f < num_flows; ++f) {
    if (phase[f] == Phase::kWaiting) now = std::min(now, activation[f]);
  }
  if (now == inf) return finish;

  while (true) {
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (phase[f] == Phase::kWaiting && activation[f] <= now) phase[f] = Phase::kActive;
    }

    std::vector<std::size_t> active;
    std::vector<std::vector<std::uint32_t>> active_routes;
    std::vector<std::vector<double>> active_fractions;
    bool any_waiting = false;
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (phase[f] == Phase::kActive) {
        active.push_back(f);
        active_routes.push_back(flows[f].route);
        active_fractions.push_back(flows[f].fractions);
      }
      any_waiting = any_waiting || phase[f] == Phase::kWaiting;
    }
    if (active.empty() && !any_waiting) break;

    const std::vector<double> rate = maxmin_rates(capacity, active_routes, active_fractions);

    // The next event: the earliest completion or activation.
    std::vector<double> completion(active.size());
    double next = inf;
    for (std::size_t k = 0; k < active.size(); ++k) {
      completion[k] = now + remaining[active[k]] / rate[k];
      next = std::min(next, completion[k]);
    }
    for (std::size_t f = 0; f < num_flows; ++f) {
      if (phase[f] == Phase::kWaiting) next = std::min(next, activation[f]);
    }

    const double dt = next - now;
    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t f = active[k];
      remaining[f] = std::max(0.0, remaining[f] - rate[k] * dt);
    }
    now = next;

    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t f = active[k];
      if (completion[k] == now || remaining[f] <= kSimultaneousRelEps * flows[f].bytes) {
        phase[f] = Phase::kDone;
        finish[f] = now;
      }
    }
  }
  return finish;
}

}  // namespace fathom::test
