// fathom's incremental max-min network against closed forms and against the independent
// reference solver in tests/support/reference_maxmin.hpp (full recomputation, continuous time).
#include "models/network/flow_network.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "tests/support/reference_maxmin.hpp"
#include "topologies/topology.hpp"

using fathom::net::FlowId;
using fathom::net::FlowNetwork;
using fathom::net::LinkCapacity;
using fathom::net::LinkId;
using fathom::sim::SimTime;

namespace {

std::vector<double> rates_after_adding(const std::vector<double>& capacity,
                                       const std::vector<std::vector<LinkId>>& routes,
                                       const std::vector<std::vector<double>>& fractions = {}) {
  std::vector<LinkCapacity> caps;
  for (double c : capacity) caps.push_back({c});
  FlowNetwork network(caps);
  std::vector<FlowId> ids;
  for (std::size_t f = 0; f < routes.size(); ++f) {
    const std::vector<double> none;
    // 1e6 bytes: unfinished at time 0 at any rate here, and within the clock at 10 B/s.
    ids.push_back(network.add_flow(routes[f], fractions.empty() ? none : fractions[f], 1e6, SimTime::zero()));
  }
  network.update(SimTime::zero());
  std::vector<double> rates;
  for (FlowId f : ids) rates.push_back(network.rate_bytes_per_s(f));
  return rates;
}

// A topology whose links are exactly the given capacities and latencies, one vertex pair
// per link: routes are then free lists of link ids, as in the reference solver.
fathom::topo::Topology line_of_links(const std::vector<double>& capacity, const std::vector<double>& latency_s) {
  fathom::topo::Topology t;
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    const auto a = t.add_vertex("a" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    const auto b = t.add_vertex("b" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    t.add_link(a, b, capacity[l], std::llround(latency_s[l] * 1e9), fathom::topo::LinkClass::kLeafSpine);
  }
  return t;
}

}  // namespace

TEST_CASE("max-min closed forms: one link, parking lot, unequal bottlenecks") {
  // Two flows on one link of 10 GB/s: 5 GB/s each.
  auto r = rates_after_adding({10e9}, {{0}, {0}});
  CHECK(r[0] == doctest::Approx(5e9));
  CHECK(r[1] == doctest::Approx(5e9));
  // Parking lot: a long flow over 4 links and one short flow per link, equal capacities.
  r = rates_after_adding({1e9, 1e9, 1e9, 1e9}, {{0, 1, 2, 3}, {0}, {1}, {2}, {3}});
  for (double x : r) CHECK(x == doctest::Approx(0.5e9));
  // Unequal bottlenecks: A on links 0 (10) and 1 (100); B on link 1 only: A = 10, B = 90.
  r = rates_after_adding({10, 100}, {{0, 1}, {1}});
  CHECK(r[0] == doctest::Approx(10));
  CHECK(r[1] == doctest::Approx(90));
}

namespace {

// 200 random static instances (seed `seed`): the incremental solver's rates equal the reference
// solver's and satisfy the max-min invariants. With `spread`, half the flows carry a fraction
// of their bytes on each link (a flow split over several paths).
void check_random_instances(std::uint64_t seed, bool spread) {
  std::mt19937_64 rng(seed);
  for (int instance = 0; instance < 200; ++instance) {
    const std::size_t links = 5 + rng() % 26;
    const std::size_t flows = 5 + rng() % 46;
    std::vector<double> capacity(links);
    for (auto& c : capacity) c = 1e9 * (1 + static_cast<double>(rng() % 100));
    std::vector<std::vector<LinkId>> routes(flows);
    std::vector<std::vector<std::uint32_t>> ref_routes(flows);
    std::vector<std::vector<double>> fractions(flows);
    for (std::size_t f = 0; f < flows; ++f) {
      std::vector<LinkId> all(links);
      for (std::size_t l = 0; l < links; ++l) all[l] = static_cast<LinkId>(l);
      std::shuffle(all.begin(), all.end(), rng);
      routes[f].assign(all.begin(), all.begin() + static_cast<long>(1 + rng() % 5));
      ref_routes[f].assign(routes[f].begin(), routes[f].end());
      if (spread && rng() % 2 == 0) {
        for (std::size_t h = 0; h < routes[f].size(); ++h) fractions[f].push_back(1.0 / (1 + rng() % 64));
      }
    }
    const auto ours = spread ? rates_after_adding(capacity, routes, fractions) : rates_after_adding(capacity, routes);
    const auto reference = spread ? fathom::test::maxmin_rates(capacity, ref_routes, fractions)
                                  : fathom::test::maxmin_rates(capacity, ref_routes);
    for (std::size_t f = 0; f < flows; ++f) REQUIRE(ours[f] == doctest::Approx(reference[f]).epsilon(1e-9));
    const auto check = spread ? fathom::test::check_maxmin_invariants(capacity, ref_routes, ours, 1e-9, fractions)
                              : fathom::test::check_maxmin_invariants(capacity, ref_routes, ours, 1e-9);
    CAPTURE(check.why);
    REQUIRE(check.ok);
  }
}

}  // namespace

TEST_CASE("incremental max-min equals the reference allocation on random instances") {
  check_random_instances(2026, false);
}

namespace {

// 60 random dynamic instances (flows arriving over 2 ms on `links_min` + up to `links_spread`
// links, routes of 1 to `max_hops` links): every finish time equals the reference solver's and
// every link carries every byte of the flows that cross it. Returns the network's work counters
// summed over the instances.
fathom::net::TransferResult check_random_dynamic(std::uint64_t seed, std::size_t links_min, std::size_t links_spread,
                                                 std::size_t max_hops) {
  std::mt19937_64 rng(seed);
  fathom::net::TransferResult total;
  for (int instance = 0; instance < 60; ++instance) {
    const std::size_t links = links_min + rng() % links_spread;
    const std::size_t flows = 10 + rng() % 60;
    std::vector<double> capacity(links), latency_s(links);
    for (std::size_t l = 0; l < links; ++l) {
      capacity[l] = 1e9 * (1 + static_cast<double>(rng() % 50));
      latency_s[l] = 1e-6 * static_cast<double>(rng() % 5);
    }
    const auto topology = line_of_links(capacity, latency_s);
    std::vector<fathom::net::FlowRequest> requests;
    std::vector<fathom::net::RoutedFlow> routed;
    std::vector<fathom::test::RefFlow> ref;
    for (std::size_t f = 0; f < flows; ++f) {
      std::vector<LinkId> all(links);
      for (std::size_t l = 0; l < links; ++l) all[l] = static_cast<LinkId>(l);
      std::shuffle(all.begin(), all.end(), rng);
      std::vector<LinkId> route(all.begin(), all.begin() + static_cast<long>(1 + rng() % max_hops));
      const double bytes = 1e5 * static_cast<double>(1 + rng() % 1000);
      const auto start = SimTime::from_ns(static_cast<std::int64_t>(rng() % 2'000'000));
      std::int64_t latency_ns = 0;
      for (LinkId l : route) latency_ns += topology.link(l).latency_ns;
      requests.push_back({f, 0, 0, bytes, start});
      routed.push_back({route, SimTime::from_ns(latency_ns)});
      ref.push_back({std::vector<std::uint32_t>(route.begin(), route.end()), bytes, start.to_seconds()});
    }
    const auto result = fathom::net::simulate_transfers(topology, requests, routed, 1);
    const auto expected = fathom::test::simulate_flows(capacity, latency_s, ref);
    for (std::size_t f = 0; f < flows; ++f) {
      const double got = result.flows[f].finish.to_seconds();
      // Tolerance of the issue: 1e-6 relative or 1 us, whichever is larger.
      REQUIRE(std::abs(got - expected[f]) <= std::max(1e-6 * expected[f], 1e-6));
    }
    // Every byte is accounted for on every link it crossed.
    std::vector<double> expected_bytes(links, 0.0);
    for (std::size_t f = 0; f < flows; ++f) {
      for (LinkId l : routed[f].route) expected_bytes[l] += requests[f].bytes;
    }
    for (std::size_t l = 0; l < links; ++l) REQUIRE(result.link_bytes[l] == doctest::Approx(expected_bytes[l]));
    total.component_updates += result.component_updates;
    total.local_settles += result.local_settles;
  }
  return total;
}

}  // namespace

TEST_CASE("flow finish times equal the reference solver's on random dynamic instances") {
  // Dense: 4 to 15 links, routes of up to 4: nearly every change re-rates its component.
  const auto dense = check_random_dynamic(7, 4, 12, 4);
  CHECK(dense.component_updates > 0);
  // Sparse: 40 to 119 links, routes of up to 3: most arrivals find spare capacity and are rated
  // alone, and the rest re-rate their component; both ways agree with the reference.
  const auto sparse = check_random_dynamic(11, 40, 80, 3);
  CHECK(sparse.local_settles > 0);
  CHECK(sparse.component_updates > 0);
  MESSAGE("sparse instances: ", sparse.local_settles, " arrivals rated alone, ", sparse.component_updates,
          " component re-ratings");
}

TEST_CASE("an arrival is rated alone only when it takes spare capacity from no faster flow") {
  // Links 0 and 1 of 10 B/s, link 2 of 6 B/s.
  FlowNetwork network({{10}, {10}, {6}});
  const std::vector<LinkId> on_0{0}, on_1{1}, on_0_1{0, 1}, on_0_2{0, 2};
  // Alone on empty links: rated from its own links, nothing re-rated.
  const FlowId a = network.add_flow(on_0_2, 1e6, SimTime::zero());
  network.update(SimTime::zero());
  CHECK(network.rate_bytes_per_s(a) == 6);  // bottlenecked on link 2
  CHECK(network.local_settles() == 1);
  CHECK(network.updates() == 0);
  // Link 0 has 4 B/s spare, but `a` runs at 6 there: max-min gives both 5, so the arrival
  // re-rates the component.
  const FlowId b = network.add_flow(on_0, 1e6, SimTime::zero());
  network.update(SimTime::zero());
  CHECK(network.rate_bytes_per_s(a) == doctest::Approx(5));
  CHECK(network.rate_bytes_per_s(b) == doctest::Approx(5));
  CHECK(network.local_settles() == 1);
  CHECK(network.updates() == 1);
  // Link 1 is empty, link 0 is saturated: re-rated (nothing spare to take).
  const FlowId c = network.add_flow(on_0_1, 1e6, SimTime::zero());
  network.update(SimTime::zero());
  CHECK(network.updates() == 2);
  CHECK(network.rate_bytes_per_s(c) == doctest::Approx(10.0 / 3));
  // Link 1 carries only c, at 10/3 (bottlenecked on link 0): an arrival there takes the 20/3
  // left, faster than c, which keeps its rate: rated alone.
  const FlowId d = network.add_flow(on_1, 1e6, SimTime::zero());
  network.update(SimTime::zero());
  CHECK(network.local_settles() == 2);
  CHECK(network.updates() == 2);
  CHECK(network.rate_bytes_per_s(d) == doctest::Approx(20.0 / 3));
  CHECK(network.rate_bytes_per_s(c) == doctest::Approx(10.0 / 3));
}

TEST_CASE("after every arrival and departure the rates are the max-min allocation of the flows then active") {
  // Driven by hand, checked at every step against the reference's static solver: what the
  // selective update leaves alone and what it re-rates (a region, or whole components) must
  // together be the allocation a full recomputation gives. Sparse (80 links, routes of 1 to 3)
  // so that all three ways occur.
  std::mt19937_64 rng(31);
  const std::size_t links = 80;
  std::vector<LinkCapacity> caps;
  std::vector<double> capacity;
  for (std::size_t l = 0; l < links; ++l) {
    capacity.push_back(1e9 * (1 + static_cast<double>(rng() % 50)));
    caps.push_back({capacity.back()});
  }
  FlowNetwork network(caps);
  std::vector<std::pair<FlowId, std::vector<LinkId>>> active;
  SimTime now = SimTime::zero();
  for (int step = 0; step < 3000; ++step) {
    if (active.size() < 10 || (rng() % 5 < 3 && active.size() < 120)) {
      std::vector<LinkId> all(links);
      for (std::size_t l = 0; l < links; ++l) all[l] = static_cast<LinkId>(l);
      std::shuffle(all.begin(), all.end(), rng);
      std::vector<LinkId> route(all.begin(), all.begin() + static_cast<long>(1 + rng() % 3));
      const double bytes = 1e5 * static_cast<double>(1 + rng() % 1000);
      active.emplace_back(network.add_flow(route, bytes, now), route);
    } else {
      now = network.next_completion();
      FlowId done;
      while (network.pop_completed(now, done)) {
        std::erase_if(active, [&](const auto& a) { return a.first == done; });
      }
    }
    network.update(now);
    std::vector<std::vector<std::uint32_t>> routes;
    for (const auto& a : active) routes.emplace_back(a.second.begin(), a.second.end());
    const auto expected = fathom::test::maxmin_rates(capacity, routes);
    for (std::size_t i = 0; i < active.size(); ++i) {
      REQUIRE(network.rate_bytes_per_s(active[i].first) == doctest::Approx(expected[i]).epsilon(1e-9));
    }
  }
  CHECK(network.local_settles() > 0);
  CHECK(network.updates() > 0);
  MESSAGE(network.local_settles(), " arrivals rated alone, ", network.updates(), " re-ratings of ",
          network.flow_rerates(), " flows in all");
}

TEST_CASE("a departure re-rates only when it leaves a saturated link that others cross") {
  // Link 0 of 10 B/s carries x (10 bytes) and y (100 bytes); link 1 of 10 B/s carries z alone.
  FlowNetwork network({{10}, {10}});
  const std::vector<LinkId> on_0{0}, on_1{1};
  const FlowId x = network.add_flow(on_0, 10, SimTime::zero());
  const FlowId y = network.add_flow(on_0, 100, SimTime::zero());
  const FlowId z = network.add_flow(on_1, 5, SimTime::zero());
  network.update(SimTime::zero());
  const auto updates_before = network.updates();
  // z finishes first (0.5 s), alone on its link: nothing else moves.
  FlowId done;
  REQUIRE(network.next_completion() == SimTime::from_ns(500'000'000));
  REQUIRE(network.pop_completed(SimTime::from_ns(500'000'000), done));
  CHECK(done == z);
  network.update(SimTime::from_ns(500'000'000));
  CHECK(network.updates() == updates_before);
  // x finishes at 2 s (5 B/s); link 0 was saturated and y is still on it: y is re-rated to 10.
  REQUIRE(network.next_completion() == SimTime::from_ns(2'000'000'000));
  REQUIRE(network.pop_completed(SimTime::from_ns(2'000'000'000), done));
  CHECK(done == x);
  network.update(SimTime::from_ns(2'000'000'000));
  CHECK(network.updates() == updates_before + 1);
  CHECK(network.rate_bytes_per_s(y) == 10);
  CHECK(network.next_completion() == SimTime::from_ns(11'000'000'000));  // 90 bytes left at 10 B/s
}

TEST_CASE("a flow alone moves at its bottleneck and finishes after latency plus bytes over rate") {
  const auto topology = line_of_links({10e9, 4e9}, {1e-6, 2e-6});
  const std::vector<fathom::net::FlowRequest> requests{{0, 0, 0, 8e9, SimTime::from_ns(500)}};
  const std::vector<fathom::net::RoutedFlow> routed{{{0, 1}, SimTime::from_ns(3000)}};
  const auto r = fathom::net::simulate_transfers(topology, requests, routed, 1);
  CHECK(r.flows[0].activated.ns() == 3500);
  CHECK(r.flows[0].finish.ns() == 3500 + 2'000'000'000);
}

TEST_CASE("the link-load timeline integrates to the bytes each link carried") {
  const std::vector<double> capacity{10e9, 4e9, 7e9};
  const auto topology = line_of_links(capacity, {1e-6, 0, 2e-6});
  std::vector<fathom::net::FlowRequest> requests;
  std::vector<fathom::net::RoutedFlow> routed;
  const std::vector<std::vector<LinkId>> routes{{0, 1}, {1, 2}, {0}, {2}, {0, 2}};
  for (std::size_t f = 0; f < routes.size(); ++f) {
    std::int64_t latency_ns = 0;
    for (LinkId l : routes[f]) latency_ns += topology.link(l).latency_ns;
    requests.push_back(
        {f, 0, 0, 1e8 * static_cast<double>(f + 1), SimTime::from_ns(static_cast<std::int64_t>(f) * 3000)});
    routed.push_back({routes[f], SimTime::from_ns(latency_ns)});
  }
  const auto r = fathom::net::simulate_transfers(topology, requests, routed, 1, true);
  REQUIRE(!r.link_loads.empty());
  std::vector<double> integral(capacity.size(), 0.0), load(capacity.size(), 0.0);
  std::vector<SimTime> since(capacity.size());
  for (const auto& s : r.link_loads) {
    REQUIRE(s.bytes_per_s <= capacity[s.link] * (1 + 1e-12));
    integral[s.link] += load[s.link] * (s.time - since[s.link]).to_seconds();
    load[s.link] = s.bytes_per_s;
    since[s.link] = s.time;
  }
  for (std::size_t l = 0; l < capacity.size(); ++l) {
    CHECK(load[l] == 0.0);  // every link ends idle
    CHECK(integral[l] == doctest::Approx(r.link_bytes[l]).epsilon(1e-6));
  }
}

TEST_CASE("flows spread over several paths: fractions of a flow on its links, against the reference") {
  // Worked by hand (reference_maxmin_test.cpp): half of flow 0 on each of links 0 and 1, flow 1 on
  // link 0: 20/3 each.
  auto r = rates_after_adding({10.0, 10.0}, {{0, 1}, {0}}, {{0.5, 0.5}, {}});
  CHECK(r[0] == doctest::Approx(20.0 / 3.0));
  CHECK(r[1] == doctest::Approx(20.0 / 3.0));
  // A NIC link (10) then a quarter of the flow on each of 4 uplinks (2 each): the uplinks allow
  // 8, so the flow runs at 8 and every uplink is full.
  r = rates_after_adding({10, 2, 2, 2, 2}, {{0, 1, 2, 3, 4}}, {{1, 0.25, 0.25, 0.25, 0.25}});
  CHECK(r[0] == doctest::Approx(8.0));
  std::vector<LinkCapacity> one{{10.0}};
  FlowNetwork bad(one);
  const std::vector<LinkId> route{0};
  CHECK_THROWS_AS(bad.add_flow(route, std::vector<double>{0.0}, 1.0, SimTime::zero()), std::invalid_argument);
  CHECK_THROWS_AS(bad.add_flow(route, std::vector<double>{0.5, 0.5}, 1.0, SimTime::zero()), std::invalid_argument);

  check_random_instances(11, true);
}

TEST_CASE("spread flows' finish times and link bytes equal the reference solver's on random dynamic instances") {
  std::mt19937_64 rng(13);
  for (int instance = 0; instance < 40; ++instance) {
    const std::size_t links = 4 + rng() % 12;
    const std::size_t flows = 10 + rng() % 40;
    std::vector<double> capacity(links);
    for (auto& c : capacity) c = 1e9 * (1 + static_cast<double>(rng() % 50));
    std::vector<LinkCapacity> caps;
    for (double c : capacity) caps.push_back({c});
    // Flows start at integer microseconds and carry whole kilobytes; the model is driven by hand
    // (no latency), the reference with zero latencies.
    struct Spec {
      std::vector<LinkId> route;
      std::vector<double> fractions;
      double bytes;
      std::int64_t start_ns;
    };
    std::vector<Spec> specs;
    std::vector<fathom::test::RefFlow> ref;
    for (std::size_t f = 0; f < flows; ++f) {
      std::vector<LinkId> all(links);
      for (std::size_t l = 0; l < links; ++l) all[l] = static_cast<LinkId>(l);
      std::shuffle(all.begin(), all.end(), rng);
      Spec s;
      s.route.assign(all.begin(), all.begin() + static_cast<long>(1 + rng() % 4));
      if (rng() % 2 == 0) {
        for (std::size_t h = 0; h < s.route.size(); ++h) s.fractions.push_back(1.0 / (1 + rng() % 8));
      }
      s.bytes = 1e5 * static_cast<double>(1 + rng() % 1000);
      s.start_ns = static_cast<std::int64_t>(rng() % 2000) * 1000;
      ref.push_back(
          {std::vector<std::uint32_t>(s.route.begin(), s.route.end()), s.bytes, s.start_ns * 1e-9, s.fractions});
      specs.push_back(std::move(s));
    }
    std::vector<std::size_t> order(flows);
    for (std::size_t f = 0; f < flows; ++f) order[f] = f;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return specs[a].start_ns < specs[b].start_ns; });
    FlowNetwork network(caps);
    std::vector<std::size_t> spec_of;
    std::vector<double> finish(flows, -1);
    std::size_t next = 0;
    SimTime now = SimTime::zero();
    while (true) {
      const SimTime arrival = next < flows ? SimTime::from_ns(specs[order[next]].start_ns) : SimTime::max();
      const SimTime done = network.next_completion();
      if (arrival == SimTime::max() && done == SimTime::max()) break;
      now = std::min(arrival, done);
      FlowId f;
      while (network.pop_completed(now, f)) finish[spec_of[f]] = now.to_seconds();
      while (next < flows && SimTime::from_ns(specs[order[next]].start_ns) == now) {
        const Spec& s = specs[order[next]];
        f = network.add_flow(s.route, s.fractions, s.bytes, now);
        if (f >= spec_of.size()) spec_of.resize(f + 1);
        spec_of[f] = order[next];
        ++next;
      }
      network.update(now);
    }
    const auto expected = fathom::test::simulate_flows(capacity, std::vector<double>(links, 0.0), ref);
    for (std::size_t f = 0; f < flows; ++f) {
      REQUIRE(std::abs(finish[f] - expected[f]) <= std::max(1e-6 * expected[f], 1e-6));
    }
    std::vector<double> expected_bytes(links, 0.0);
    for (const Spec& s : specs) {
      for (std::size_t h = 0; h < s.route.size(); ++h) {
        expected_bytes[s.route[h]] += s.bytes * (s.fractions.empty() ? 1.0 : s.fractions[h]);
      }
    }
    for (std::size_t l = 0; l < links; ++l) {
      REQUIRE(network.link_bytes(static_cast<LinkId>(l)) == doctest::Approx(expected_bytes[l]));
    }
  }
}

TEST_CASE("a flow whose finish lies beyond the clock stops the update with BeyondClock, not a silent 'never'") {
  FlowNetwork network({LinkCapacity{0.125}});                                                      // 1 bit/s
  const FlowId f = network.add_flow(std::vector<LinkId>{0}, {}, 1e15, SimTime::from_seconds(10));  // 1 PB
  try {
    network.update(SimTime::from_seconds(10));
    FAIL("no exception");
  } catch (const fathom::net::BeyondClock& e) {
    CHECK(e.flow() == f);
    CHECK(e.remaining_bytes() == 1e15);
    CHECK(e.bytes_per_s() == 0.125);
    CHECK(e.seconds() == doctest::Approx(10 + 8e15));  // from time 0
  }
  // Just inside the clock: finishes, at its exact (rounded-up) nanosecond.
  FlowNetwork fits({LinkCapacity{1.0}});
  fits.add_flow(std::vector<LinkId>{0}, {}, 9.0e9, SimTime::zero());  // 9e9 s, 285 years
  fits.update(SimTime::zero());
  CHECK(fits.next_completion() == SimTime::from_seconds(9.0e9));
}
