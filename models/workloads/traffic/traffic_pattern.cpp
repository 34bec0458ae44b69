#include "models/workloads/traffic/traffic_pattern.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/hash.hpp"
#include "sim/random.hpp"

namespace fathom::workload {

namespace {
// Random streams of the traffic generator, apart from any LP's (LP ids are below 2^32).
constexpr std::uint64_t kDestinationStream = 0x7472616666696301ULL;
constexpr std::uint64_t kStartStream = 0x7472616666696302ULL;

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("traffic: " + what); }
}  // namespace

std::string_view to_string(TrafficPattern pattern) {
  switch (pattern) {
    case TrafficPattern::kPermutation:
      return "permutation";
    case TrafficPattern::kAllToAll:
      return "all-to-all";
    case TrafficPattern::kIncast:
      return "incast";
    case TrafficPattern::kRing:
      return "ring";
    case TrafficPattern::kRandom:
      return "random";
  }
  return "?";
}

std::vector<net::FlowRequest> generate_traffic(const TrafficSpec& spec, const std::vector<topo::VertexId>& endpoints,
                                               std::uint64_t seed) {
  const std::size_t n = spec.endpoints == 0 ? endpoints.size() : spec.endpoints;
  if (n > endpoints.size()) {
    bad("endpoints: " + std::to_string(n) + " requested, the topology has " + std::to_string(endpoints.size()));
  }
  if (n < 2) bad("endpoints: a pattern needs at least 2 endpoints, got " + std::to_string(n));
  if (!(spec.bytes_per_flow >= 0) || !std::isfinite(spec.bytes_per_flow)) bad("bytes must be finite and >= 0");
  if (spec.start < sim::SimTime::zero() || spec.start_window < sim::SimTime::zero()) {
    bad("start and start_window must be >= 0");
  }

  sim::RandomStream pick(seed, kDestinationStream);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (source index, destination index)
  switch (spec.pattern) {
    case TrafficPattern::kPermutation: {
      // Uniform over derangements: shuffle until no endpoint maps to itself (e tries on average).
      std::vector<std::size_t> to(n);
      do {
        std::iota(to.begin(), to.end(), std::size_t{0});
        for (std::size_t i = n - 1; i > 0; --i) std::swap(to[i], to[pick.uniform_below(i + 1)]);
      } while ([&] {
        for (std::size_t i = 0; i < n; ++i) {
          if (to[i] == i) return true;
        }
        return false;
      }());
      for (std::size_t i = 0; i < n; ++i) pairs.emplace_back(i, to[i]);
      break;
    }
    case TrafficPattern::kAllToAll:
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          if (i != j) pairs.emplace_back(i, j);
        }
      }
      break;
    case TrafficPattern::kIncast:
      if (spec.incast_target >= n) {
        bad("incast target " + std::to_string(spec.incast_target) + " is not among the " + std::to_string(n) +
            " endpoints");
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (i != spec.incast_target) pairs.emplace_back(i, spec.incast_target);
      }
      break;
    case TrafficPattern::kRing:
      for (std::size_t i = 0; i < n; ++i) pairs.emplace_back(i, (i + 1) % n);
      break;
    case TrafficPattern::kRandom:
      if (spec.flows == 0) bad("flows: the random pattern needs a positive number of flows");
      for (std::size_t k = 0; k < spec.flows; ++k) {
        const std::size_t i = pick.uniform_below(n);
        std::size_t j = pick.uniform_below(n - 1);
        if (j >= i) ++j;  // uniform over the other endpoints
        pairs.emplace_back(i, j);
      }
      break;
  }

  sim::RandomStream when(seed, kStartStream);
  std::vector<net::FlowRequest> flows;
  flows.reserve(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    sim::SimTime start = spec.start;
    if (spec.start_window > sim::SimTime::zero()) {
      start += sim::SimTime::from_ns(
          static_cast<std::int64_t>(when.uniform_below(static_cast<std::uint64_t>(spec.start_window.ns()))));
    }
    flows.push_back({k, endpoints[pairs[k].first], endpoints[pairs[k].second], spec.bytes_per_flow, start});
  }
  return flows;
}

std::vector<net::FlowRequest> generate_traffic_in_groups(const TrafficSpec& spec,
                                                         const std::vector<std::vector<topo::VertexId>>& groups,
                                                         std::uint64_t seed) {
  std::vector<net::FlowRequest> flows;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<net::FlowRequest> part = generate_traffic(spec, groups[g], sim::hash_combine(seed, g));
    const std::uint64_t first = flows.size();
    for (net::FlowRequest& f : part) {
      f.id += first;
      flows.push_back(f);
    }
  }
  return flows;
}

}  // namespace fathom::workload
