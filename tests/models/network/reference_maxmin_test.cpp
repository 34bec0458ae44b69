// Tests of the reference max-min model (tests/support/reference_maxmin.hpp) that the network
// model's tests compare against: closed forms worked out by hand, two independent max-min
// algorithms agreeing on random instances, the invariant checker accepting them and rejecting
// wrong allocations, and the event loop against hand-computed and processor-sharing finish times.
#include "tests/support/reference_maxmin.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using fathom::test::brute_force_maxmin;
using fathom::test::check_maxmin_invariants;
using fathom::test::maxmin_rates;
using fathom::test::RefFlow;
using fathom::test::simulate_flows;
using Routes = std::vector<std::vector<std::uint32_t>>;

constexpr double kTol = 1e-9;

bool close(double a, double b, double rel) {
  if (a == b) return true;  // also equal infinities
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

// Both algorithms give `expected`, and the checker accepts it.
void check_rates(const std::vector<double>& capacity, const Routes& routes, const std::vector<double>& expected) {
  const std::vector<double> fill = maxmin_rates(capacity, routes);
  const std::vector<double> brute = brute_force_maxmin(capacity, routes);
  REQUIRE(fill.size() == expected.size());
  REQUIRE(brute.size() == expected.size());
  for (std::size_t f = 0; f < expected.size(); ++f) {
    INFO("flow " << f << ": expected " << expected[f] << ", progressive filling " << fill[f] << ", bisection "
                 << brute[f]);
    CHECK(close(fill[f], expected[f], 1e-12));
    CHECK(close(brute[f], expected[f], 1e-12));
  }
  const auto verdict = check_maxmin_invariants(capacity, routes, fill, kTol);
  INFO(verdict.why);
  CHECK(verdict.ok);
}

// log-uniform in [lo, hi]
double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::exp(u(rng));
}

struct Instance {
  std::vector<double> capacity;
  Routes routes;
};

// 5-30 links with capacities log-uniform in [1e6, 1e11] bytes/s; 5-50 flows, each over 1-5
// links, distinct unless `repeats` (then drawn with replacement, so a flow may cross a link twice).
Instance random_instance(std::mt19937_64& rng, bool repeats) {
  Instance inst;
  const auto num_links = std::uniform_int_distribution<std::size_t>(5, 30)(rng);
  const auto num_flows = std::uniform_int_distribution<std::size_t>(5, 50)(rng);
  for (std::size_t l = 0; l < num_links; ++l) inst.capacity.push_back(log_uniform(rng, 1e6, 1e11));
  std::vector<std::uint32_t> ids(num_links);
  std::iota(ids.begin(), ids.end(), 0u);
  for (std::size_t f = 0; f < num_flows; ++f) {
    const auto length = std::uniform_int_distribution<std::size_t>(1, 5)(rng);
    std::vector<std::uint32_t> route;
    if (repeats) {
      std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(num_links - 1));
      for (std::size_t i = 0; i < length; ++i) route.push_back(pick(rng));
    } else {
      std::shuffle(ids.begin(), ids.end(), rng);
      route.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(length));
    }
    inst.routes.push_back(route);
  }
  return inst;
}

}  // namespace

TEST_CASE("maxmin: two flows on one link get half each") { check_rates({10.0}, {{0}, {0}}, {5.0, 5.0}); }

TEST_CASE("maxmin: n flows on one link get C/n each") {
  for (std::size_t n = 1; n <= 7; ++n) {
    check_rates({21.0}, Routes(n, std::vector<std::uint32_t>{0}),
                std::vector<double>(n, 21.0 / static_cast<double>(n)));
  }
}

TEST_CASE("maxmin: parking lot, equal capacities, everyone gets C/2") {
  for (std::uint32_t n = 1; n <= 6; ++n) {
    const double c = 1.25e9;
    std::vector<double> capacity(n, c);
    Routes routes;
    std::vector<std::uint32_t> long_route(n);
    std::iota(long_route.begin(), long_route.end(), 0u);
    routes.push_back(long_route);
    for (std::uint32_t l = 0; l < n; ++l) routes.push_back({l});
    check_rates(capacity, routes, std::vector<double>(n + 1, c / 2.0));
  }
}

TEST_CASE("maxmin: unequal bottlenecks, the leftover goes to the flow that can use it") {
  // A over links 0 (cap 10) and 1 (cap 100), B over link 1 only: A = 10, B = 90.
  check_rates({10.0, 100.0}, {{0, 1}, {1}}, {10.0, 90.0});
}

TEST_CASE("maxmin: a flow alone on a path gets the smallest capacity") {
  check_rates({40.0, 7.5, 12.0, 300.0}, {{0, 1, 2, 3}}, {7.5});
  check_rates({40.0, 7.5, 12.0, 300.0}, {{3, 0}}, {40.0});
}

TEST_CASE("maxmin: a three-level example worked by hand") {
  // Link 0 (cap 6): A, B, C. Link 1 (cap 10): C, D. Link 2 (cap 100): D, E.
  // Shares: link 0 6/3 = 2, link 1 10/2 = 5, link 2 50 -> A = B = C = 2.
  // Then link 1 has 8 left for D alone (8), link 2 has 100 - 8 = 92 for E.
  check_rates({6.0, 10.0, 100.0}, {{0}, {0}, {0, 1}, {1, 2}, {2}}, {2.0, 2.0, 2.0, 8.0, 92.0});
}

TEST_CASE("maxmin: a flow crossing a link twice counts twice there") {
  // Alone, crossing the link twice: uses 2r <= 10, so r = 5.
  check_rates({10.0}, {{0, 0}}, {5.0});
  // With a second flow crossing once: 3 "flows" share 12, 4 each; the link carries 2*4 + 4 = 12.
  check_rates({12.0}, {{0, 0}, {0}}, {4.0, 4.0});
  // A flow over links 0, 1, 0 (cap 10, 100) and one over link 1 (cap 100): link 0 gives 5, so 95 is left.
  check_rates({10.0, 100.0}, {{0, 1, 0}, {1}}, {5.0, 95.0});
}

TEST_CASE("maxmin: an empty route is unlimited, a link no flow crosses is ignored") {
  const std::vector<double> capacity{10.0, 1.0};
  const Routes routes{{}, {0}, {}};
  const auto fill = maxmin_rates(capacity, routes);
  const auto brute = brute_force_maxmin(capacity, routes);
  CHECK(std::isinf(fill[0]));
  CHECK(fill[1] == 10.0);
  CHECK(std::isinf(fill[2]));
  CHECK(std::isinf(brute[0]));
  CHECK(brute[1] == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(std::isinf(brute[2]));
  CHECK(check_maxmin_invariants(capacity, routes, fill, kTol).ok);
  CHECK(maxmin_rates(capacity, {}).empty());
  CHECK(brute_force_maxmin(capacity, {}).empty());
}

TEST_CASE("maxmin: bad input throws") {
  CHECK_THROWS_AS(maxmin_rates({10.0}, {{1}}), std::invalid_argument);
  CHECK_THROWS_AS(maxmin_rates({0.0}, {{0}}), std::invalid_argument);
  CHECK_THROWS_AS(maxmin_rates({-1.0}, {{0}}), std::invalid_argument);
  CHECK_THROWS_AS(maxmin_rates({std::numeric_limits<double>::infinity()}, {{0}}), std::invalid_argument);
  CHECK_THROWS_AS(brute_force_maxmin({10.0}, {{1}}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_flows({10.0}, {0.0, 0.0}, {}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_flows({10.0}, {-1.0}, {}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_flows({10.0}, {0.0}, {RefFlow{{0}, -5.0, 0.0}}), std::invalid_argument);
  CHECK_THROWS_AS(simulate_flows({10.0}, {0.0}, {RefFlow{{2}, 5.0, 0.0}}), std::invalid_argument);
}

TEST_CASE("maxmin: the checker rejects allocations that are not max-min fair") {
  const std::vector<double> capacity{10.0};
  const Routes routes{{0}, {0}};
  CHECK(check_maxmin_invariants(capacity, routes, {5.0, 5.0}, kTol).ok);
  // Feasible and saturating, but flow 1 is not the largest on its only link.
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {7.0, 3.0}, kTol).ok);
  // Over capacity.
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {5.0, 5.1}, kTol).ok);
  // Nothing saturated.
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {4.0, 4.0}, kTol).ok);
  // Zero, NaN, infinite, wrong count.
  CHECK_FALSE(check_maxmin_invariants(capacity, {{0}}, {0.0}, kTol).ok);
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {std::nan(""), 5.0}, kTol).ok);
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {std::numeric_limits<double>::infinity(), 5.0}, kTol).ok);
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, {5.0}, kTol).ok);
  CHECK_FALSE(check_maxmin_invariants(capacity, {{3}}, {5.0}, kTol).ok);
  // The unequal-bottleneck case with an even split is feasible but leaves link 1 unsaturated.
  CHECK_FALSE(check_maxmin_invariants({10.0, 100.0}, {{0, 1}, {1}}, {10.0, 10.0}, kTol).ok);
  // ... and the crossing-twice case, if the second crossing were not counted.
  CHECK_FALSE(check_maxmin_invariants({10.0}, {{0, 0}}, {10.0}, kTol).ok);
}

TEST_CASE("maxmin: random instances, both algorithms agree and the invariants hold") {
  for (const bool repeats : {false, true}) {
    std::mt19937_64 rng(repeats ? 0x5eed2u : 0x5eed1u);
    for (int instance = 0; instance < 200; ++instance) {
      const Instance inst = random_instance(rng, repeats);
      const auto fill = maxmin_rates(inst.capacity, inst.routes);
      const auto brute = brute_force_maxmin(inst.capacity, inst.routes);
      REQUIRE(fill.size() == inst.routes.size());
      REQUIRE(brute.size() == inst.routes.size());
      for (std::size_t f = 0; f < fill.size(); ++f) {
        INFO("repeats " << repeats << " instance " << instance << " flow " << f << ": " << fill[f] << " vs "
                        << brute[f]);
        CHECK(close(fill[f], brute[f], kTol));
      }
      INFO("repeats " << repeats << " instance " << instance);
      const auto fill_verdict = check_maxmin_invariants(inst.capacity, inst.routes, fill, kTol);
      INFO(fill_verdict.why);
      CHECK(fill_verdict.ok);
      const auto brute_verdict = check_maxmin_invariants(inst.capacity, inst.routes, brute, kTol);
      INFO(brute_verdict.why);
      CHECK(brute_verdict.ok);

      // Wrong allocations must fail: all rates halved (no link is saturated any more), and one
      // rate bumped by 1% (its bottleneck link goes over capacity).
      std::vector<double> halved = fill;
      for (double& r : halved) r /= 2.0;
      CHECK_FALSE(check_maxmin_invariants(inst.capacity, inst.routes, halved, kTol).ok);
      for (std::size_t f = 0; f < fill.size(); f += 7) {
        std::vector<double> bumped = fill;
        bumped[f] *= 1.01;
        CHECK_FALSE(check_maxmin_invariants(inst.capacity, inst.routes, bumped, kTol).ok);
      }
    }
  }
}

TEST_CASE("simulate: two equal flows starting together on one link") {
  const double c = 1e9;
  const double bytes = 3e8;
  for (const double latency : {0.0, 1e-6, 0.25}) {
    const auto finish = simulate_flows({c}, {latency}, {RefFlow{{0}, bytes, 0.0}, RefFlow{{0}, bytes, 0.0}});
    CHECK(finish[0] == doctest::Approx(latency + 2.0 * bytes / c).epsilon(1e-12));
    CHECK(finish[1] == finish[0]);
  }
  // Latencies add up along the route; a later start shifts everything.
  const auto finish = simulate_flows({c, c}, {0.5, 0.25}, {RefFlow{{0, 1}, bytes, 2.0}, RefFlow{{1, 0}, bytes, 2.0}});
  CHECK(finish[0] == doctest::Approx(2.0 + 0.75 + 2.0 * bytes / c).epsilon(1e-12));
  CHECK(finish[1] == finish[0]);
}

TEST_CASE("simulate: staggered start on one link, worked by hand") {
  // C = 100. Flow 0: 1000 bytes at t = 0. Flow 1: 300 bytes at t = 2.
  // 0..2: flow 0 alone at 100, moves 200, 800 left.
  // 2..8: both at 50; flow 1 needs 300/50 = 6 s, finishes at 8; flow 0 moves 300, 500 left.
  // 8..13: flow 0 alone at 100, 5 s.
  const auto finish = simulate_flows({100.0}, {0.0}, {RefFlow{{0}, 1000.0, 0.0}, RefFlow{{0}, 300.0, 2.0}});
  CHECK(finish[0] == doctest::Approx(13.0).epsilon(1e-12));
  CHECK(finish[1] == doctest::Approx(8.0).epsilon(1e-12));
}

TEST_CASE("simulate: latency delays activation and uses no bandwidth, worked by hand") {
  // Link 0: 100 B/s, 1 s latency. Link 1: 1000 B/s, 4 s latency.
  // Flow 0 over link 0: 1000 bytes at t = 0, active at 1.
  // Flow 1 over links 1, 0: 200 bytes at t = 0, active at 5.
  // 1..5: flow 0 alone at 100, 400 moved, 600 left.
  // 5..9: link 0 split 50/50 (link 1 is not a bottleneck); flow 1 needs 4 s, done at 9; flow 0 has 400 left.
  // 9..13: flow 0 alone at 100.
  const auto finish =
      simulate_flows({100.0, 1000.0}, {1.0, 4.0}, {RefFlow{{0}, 1000.0, 0.0}, RefFlow{{1, 0}, 200.0, 0.0}});
  CHECK(finish[0] == doctest::Approx(13.0).epsilon(1e-12));
  CHECK(finish[1] == doctest::Approx(9.0).epsilon(1e-12));
}

TEST_CASE("simulate: three flows with thirds, worked by hand") {
  // C = 30. Flows of 30, 60, 90 bytes, all at 0: each at 10 until flow 0 is done at 3 (flows 1
  // and 2 have 30 and 60 left); then 15 each until flow 1 is done at 5 (flow 2 has 30 left);
  // then flow 2 alone at 30, done at 6. (Processor sharing: (n-k+1) s_k + sum of smaller.)
  const auto finish =
      simulate_flows({30.0}, {0.0}, {RefFlow{{0}, 90.0, 0.0}, RefFlow{{0}, 30.0, 0.0}, RefFlow{{0}, 60.0, 0.0}});
  CHECK(finish[0] == doctest::Approx(6.0).epsilon(1e-12));
  CHECK(finish[1] == doctest::Approx(3.0).epsilon(1e-12));
  CHECK(finish[2] == doctest::Approx(5.0).epsilon(1e-12));
}

TEST_CASE("simulate: unequal bottlenecks over time, worked by hand") {
  // Link 0 cap 10, link 1 cap 100. A over 0, 1 with 100 bytes; B over 1 with 1800 bytes; both at 0.
  // 0..10: A at 10, B at 90; A done at 10, B has 900 left. 10..19: B alone at 100.
  const auto finish =
      simulate_flows({10.0, 100.0}, {0.0, 0.0}, {RefFlow{{0, 1}, 100.0, 0.0}, RefFlow{{1}, 1800.0, 0.0}});
  CHECK(finish[0] == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(finish[1] == doctest::Approx(19.0).epsilon(1e-12));
}

TEST_CASE("simulate: simultaneous finishes and activations, empty routes, zero sizes") {
  // C = 100. A and B: 500 bytes each at 0, both done at 10. C: 100 bytes at 10, alone: done at 11.
  // D: 0 bytes at 3 over link 0 (latency 0.5): done at 3.5. E: empty route, 1e9 bytes at 7: done at 7.
  const auto finish = simulate_flows({100.0}, {0.0},
                                     {RefFlow{{0}, 500.0, 0.0}, RefFlow{{0}, 500.0, 0.0}, RefFlow{{0}, 100.0, 10.0},
                                      RefFlow{{0}, 0.0, 3.0}, RefFlow{{}, 1e9, 7.0}});
  CHECK(finish[0] == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(finish[1] == finish[0]);
  CHECK(finish[2] == doctest::Approx(11.0).epsilon(1e-12));
  CHECK(finish[3] == 3.0);
  CHECK(finish[4] == 7.0);

  const auto with_latency = simulate_flows({100.0}, {0.5}, {RefFlow{{0}, 0.0, 3.0}, RefFlow{{}, 5.0, 1.0}});
  CHECK(with_latency[0] == 3.5);
  CHECK(with_latency[1] == 1.0);
  CHECK(simulate_flows({100.0}, {0.5}, {}).empty());

  // Many equal flows: all finish together, in one event.
  const std::vector<RefFlow> many(17, RefFlow{{0}, 1.7e7, 0.0});
  const auto together = simulate_flows({1e8}, {0.0}, many);
  for (double t : together) CHECK(t == doctest::Approx(17.0 * 1.7e7 / 1e8).epsilon(1e-12));
}

TEST_CASE("simulate: random flows on one link match processor sharing") {
  // All at 0 on one link of capacity C: sorted sizes s_1 <= ... <= s_n, flow k finishes at
  // latency + (s_1 + ... + s_{k-1} + (n - k + 1) s_k) / C.
  std::mt19937_64 rng(0x9157u);
  for (int instance = 0; instance < 200; ++instance) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    const double c = log_uniform(rng, 1e6, 1e11);
    const double latency = std::uniform_real_distribution<double>(0.0, 1e-3)(rng);
    std::vector<RefFlow> flows;
    for (std::size_t f = 0; f < n; ++f) flows.push_back(RefFlow{{0}, log_uniform(rng, 1.0, 1e9), 0.0});
    const auto finish = simulate_flows({c}, {latency}, flows);

    std::vector<double> sizes;
    for (const auto& flow : flows) sizes.push_back(flow.bytes);
    std::sort(sizes.begin(), sizes.end());
    for (std::size_t f = 0; f < n; ++f) {
      const auto k =
          static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), flows[f].bytes) - sizes.begin());
      double work = 0.0;
      for (std::size_t j = 0; j < k; ++j) work += sizes[j];
      work += static_cast<double>(n - k) * sizes[k];
      INFO("instance " << instance << " flow " << f);
      CHECK(close(finish[f], latency + work / c, 1e-9));
    }
  }
}

TEST_CASE("simulate: random staggered flows on one link keep the link busy") {
  // Max-min sharing on one link is work-conserving, so the last flow finishes when the
  // unfinished work first drains: max over arrivals a_k (in time order) of a_k + (sizes of the
  // flows arriving at or after a_k) / C. And no flow beats its own size at full capacity.
  std::mt19937_64 rng(0xb051u);
  for (int instance = 0; instance < 200; ++instance) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, 30)(rng);
    const double c = 1e9;
    std::vector<RefFlow> flows;
    for (std::size_t f = 0; f < n; ++f) {
      flows.push_back(RefFlow{{0}, log_uniform(rng, 1e3, 1e9), std::uniform_real_distribution<double>(0.0, 2.0)(rng)});
    }
    const auto finish = simulate_flows({c}, {0.0}, flows);

    double expected_last = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      double later_work = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        if (flows[j].start_s >= flows[k].start_s) later_work += flows[j].bytes;
      }
      expected_last = std::max(expected_last, flows[k].start_s + later_work / c);
    }
    INFO("instance " << instance);
    CHECK(close(*std::max_element(finish.begin(), finish.end()), expected_last, 1e-9));
    for (std::size_t f = 0; f < n; ++f) {
      CHECK(finish[f] >= (flows[f].start_s + flows[f].bytes / c) * (1.0 - 1e-12));
    }
  }
}

TEST_CASE("simulate: random multi-link flows end with every byte accounted for") {
  // Replays each random run and checks it from the outside: between consecutive distinct event
  // times (starts and finishes) the set of active flows is fixed, so their max-min rates are
  // fixed; the bytes each flow moves over its active intervals must add up to its size.
  std::mt19937_64 rng(0xacc7u);
  for (int instance = 0; instance < 100; ++instance) {
    const Instance inst = random_instance(rng, false);
    std::vector<double> latency;
    for (std::size_t l = 0; l < inst.capacity.size(); ++l) {
      latency.push_back(std::uniform_real_distribution<double>(0.0, 1e-3)(rng));
    }
    std::vector<RefFlow> flows;
    for (const auto& route : inst.routes) {
      flows.push_back(
          RefFlow{route, log_uniform(rng, 1e3, 1e9), std::uniform_real_distribution<double>(0.0, 0.01)(rng)});
    }
    const auto finish = simulate_flows(inst.capacity, latency, flows);

    std::vector<double> activation;
    std::vector<double> times;
    for (std::size_t f = 0; f < flows.size(); ++f) {
      double lat = 0.0;
      for (std::uint32_t l : flows[f].route) lat += latency[l];
      activation.push_back(flows[f].start_s + lat);
      times.push_back(activation.back());
      times.push_back(finish[f]);
      REQUIRE(finish[f] > activation[f]);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());

    std::vector<double> moved(flows.size(), 0.0);
    for (std::size_t i = 0; i + 1 < times.size(); ++i) {
      const double mid = (times[i] + times[i + 1]) / 2.0;
      std::vector<std::size_t> active;
      Routes routes;
      for (std::size_t f = 0; f < flows.size(); ++f) {
        if (activation[f] <= mid && mid < finish[f]) {
          active.push_back(f);
          routes.push_back(flows[f].route);
        }
      }
      const auto rates = brute_force_maxmin(inst.capacity, routes);
      for (std::size_t k = 0; k < active.size(); ++k) moved[active[k]] += rates[k] * (times[i + 1] - times[i]);
    }
    for (std::size_t f = 0; f < flows.size(); ++f) {
      INFO("instance " << instance << " flow " << f);
      CHECK(close(moved[f], flows[f].bytes, 1e-6));
    }
  }
}

TEST_CASE("maxmin with fractions: a flow spread over two paths, worked by hand") {
  // Flow 0 sends half its bytes over link 0 and half over link 1 (both 10); flow 1 uses link 0
  // alone. Filling: link 0 counts 1.5 flows (share 6.67), link 1 counts 0.5 (share 20), so link 0
  // saturates first at 20/3 each: flow 0 puts 10/3 on link 0 and 10/3 on link 1.
  const std::vector<double> capacity{10.0, 10.0};
  const Routes routes{{0, 1}, {0}};
  const std::vector<std::vector<double>> fractions{{0.5, 0.5}, {}};
  const auto fill = maxmin_rates(capacity, routes, fractions);
  const auto brute = brute_force_maxmin(capacity, routes, fractions);
  for (const auto& rates : {fill, brute}) {
    CHECK(close(rates[0], 20.0 / 3.0, 1e-12));
    CHECK(close(rates[1], 20.0 / 3.0, 1e-12));
  }
  const auto verdict = check_maxmin_invariants(capacity, routes, fill, kTol, fractions);
  INFO(verdict.why);
  CHECK(verdict.ok);
  // Without its fractions the same allocation overloads link 1's share of flow 0... and link 0.
  CHECK_FALSE(check_maxmin_invariants(capacity, routes, fill, kTol).ok);
  // A fraction of 2 is a link crossed twice.
  CHECK(close(maxmin_rates({10.0}, {{0}}, {{2.0}})[0], maxmin_rates({10.0}, {{0, 0}})[0], 1e-15));
  CHECK_THROWS_AS(maxmin_rates({10.0}, {{0}}, {{0.0}}), std::invalid_argument);
  CHECK_THROWS_AS(maxmin_rates({10.0}, {{0}}, {{0.5, 0.5}}), std::invalid_argument);
}

TEST_CASE("maxmin with fractions: random instances, both algorithms agree and the invariants hold") {
  std::mt19937_64 rng(0x5eed3u);
  for (int instance = 0; instance < 200; ++instance) {
    const Instance inst = random_instance(rng, false);
    std::vector<std::vector<double>> fractions(inst.routes.size());
    for (std::size_t f = 0; f < inst.routes.size(); ++f) {
      if (rng() % 3 == 0) continue;  // some flows stay plain paths
      for (std::size_t h = 0; h < inst.routes[f].size(); ++h) fractions[f].push_back(log_uniform(rng, 1e-3, 1.0));
    }
    const auto fill = maxmin_rates(inst.capacity, inst.routes, fractions);
    const auto brute = brute_force_maxmin(inst.capacity, inst.routes, fractions);
    for (std::size_t f = 0; f < fill.size(); ++f) {
      INFO("instance " << instance << " flow " << f << ": " << fill[f] << " vs " << brute[f]);
      CHECK(close(fill[f], brute[f], kTol));
    }
    const auto verdict = check_maxmin_invariants(inst.capacity, inst.routes, fill, kTol, fractions);
    INFO(verdict.why);
    CHECK(verdict.ok);
  }
}
