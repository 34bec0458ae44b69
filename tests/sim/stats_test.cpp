// Tests of sim/stats: Counter, TimeWeightedValue, ExactQuantiles and LogHistogram, against
// closed forms (step-function integrals, order statistics of 1..n, exponential quantiles).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/random.hpp"
#include "sim/stats/counter.hpp"
#include "sim/stats/histogram.hpp"
#include "sim/stats/time_weighted.hpp"
#include "sim/time.hpp"

namespace {

using fathom::sim::Counter;
using fathom::sim::ExactQuantiles;
using fathom::sim::LogHistogram;
using fathom::sim::RandomStream;
using fathom::sim::SimTime;
using fathom::sim::TimeWeightedValue;
using namespace fathom::sim::literals;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// |reported - exact| <= exact * bound, in exact integer arithmetic where possible.
bool within_bound(std::uint64_t reported, std::uint64_t exact, double bound) {
  const std::uint64_t diff = reported > exact ? reported - exact : exact - reported;
  return static_cast<long double>(diff) <= static_cast<long double>(exact) * bound;
}

// 1..n in an order drawn from `stream`, so that sorting is exercised.
std::vector<std::uint64_t> shuffled_one_to(std::uint64_t n, RandomStream stream) {
  std::vector<std::uint64_t> values(n);
  std::iota(values.begin(), values.end(), std::uint64_t{1});
  for (std::uint64_t i = n - 1; i > 0; --i) std::swap(values[i], values[stream.uniform_below(i + 1)]);
  return values;
}

}  // namespace

TEST_CASE("stats: Counter adds, increments and merges") {
  Counter a;
  CHECK(a.value() == 0);
  a.increment();
  a.add(41);
  CHECK(a.value() == 42);
  Counter b(8);
  b.merge(a);
  CHECK(b.value() == 50);
  CHECK(a.value() == 42);
  CHECK(b == Counter(50));
  CHECK_FALSE(a == b);
}

TEST_CASE("stats: ExactQuantiles nearest-rank percentiles of 1..1000") {
  ExactQuantiles q;
  for (const std::uint64_t v : shuffled_one_to(1000, RandomStream(42, 1))) q.add(static_cast<double>(v));
  CHECK(q.count() == 1000);
  CHECK(q.min() == 1.0);
  CHECK(q.max() == 1000.0);
  CHECK(q.mean() == 500.5);
  CHECK(q.quantile(0.0) == 1.0);
  CHECK(q.quantile(1.0) == 1000.0);
  CHECK(q.p50() == 500.0);
  CHECK(q.p90() == 900.0);
  CHECK(q.p99() == 990.0);
  CHECK(q.p999() == 999.0);
  // Just above a rank boundary rounds up: ceil(0.5005 * 1000) = 501.
  CHECK(q.quantile(0.5005) == 501.0);
  CHECK(q.quantile(0.0001) == 1.0);
  // Every p = k / 1000 gives the k-th sample, although k / 1000.0 * 1000 is not always exactly k.
  for (int k = 1; k <= 1000; ++k) {
    CAPTURE(k);
    CHECK(q.quantile(k / 1000.0) == static_cast<double>(k));
  }

  // Adding after a query invalidates the sorted cache.
  q.add(0.0);
  q.add(2000.0);
  CHECK(q.quantile(0.0) == 0.0);
  CHECK(q.quantile(1.0) == 2000.0);
  CHECK(q.min() == 0.0);
  CHECK(q.max() == 2000.0);
}

TEST_CASE("stats: quantile ranks do not pick up binary rounding of p * n") {
  // 0.07 * 100 is 7.000000000000001 in double; a plain ceil would return the 8th sample.
  ExactQuantiles q;
  for (int v = 1; v <= 100; ++v) q.add(v);
  CHECK(q.quantile(0.07) == 7.0);
  CHECK(q.quantile(0.57) == 57.0);
  CHECK(fathom::sim::nearest_rank(0.07, 100) == 7);
  CHECK(fathom::sim::nearest_rank(0.071, 100) == 8);
  CHECK(fathom::sim::nearest_rank(0.0, 5) == 1);
  CHECK(fathom::sim::nearest_rank(1.0, 5) == 5);
}

TEST_CASE("stats: ExactQuantiles merge equals one fed both inputs") {
  ExactQuantiles a, b, both;
  RandomStream stream(42, 2);
  for (int i = 0; i < 500; ++i) {
    const double x = stream.exponential(3.0);
    a.add(x);
    both.add(x);
  }
  for (int i = 0; i < 700; ++i) {
    const double x = 10.0 * stream.uniform01();
    b.add(x);
    both.add(x);
  }
  a.merge(b);
  CHECK(a.count() == both.count());
  CHECK(a.min() == both.min());
  CHECK(a.max() == both.max());
  CHECK(a.mean() == doctest::Approx(both.mean()).epsilon(1e-15));
  for (int k = 0; k <= 100; ++k) CHECK(a.quantile(k / 100.0) == both.quantile(k / 100.0));

  // Merging with itself doubles every sample.
  ExactQuantiles c;
  c.add(3.0);
  c.add(1.0);
  c.merge(c);
  CHECK(c.count() == 4);
  CHECK(c.quantile(0.5) == 1.0);
  CHECK(c.quantile(0.75) == 3.0);
}

TEST_CASE("stats: ExactQuantiles rejects bad input") {
  ExactQuantiles q;
  CHECK_THROWS_AS(q.quantile(0.5), std::logic_error);
  CHECK_THROWS_AS(q.mean(), std::logic_error);
  CHECK_THROWS_AS(q.min(), std::logic_error);
  CHECK_THROWS_AS(q.add(std::nan("")), std::invalid_argument);
  q.add(1.0);
  CHECK_THROWS_AS(q.quantile(-0.01), std::invalid_argument);
  CHECK_THROWS_AS(q.quantile(1.01), std::invalid_argument);
  CHECK_THROWS_AS(q.quantile(std::nan("")), std::invalid_argument);
  CHECK(q.quantile(1.0) == 1.0);
}

TEST_CASE("stats: TimeWeightedValue of a step function has its exact integral and mean") {
  // 0 on [0, 1 s), 2 on [1 s, 3 s), 5 on [3 s, 4 s), 1 on [4 s, 10 s]:
  // integral 0 + 4 + 5 + 6 = 15 value.s, mean 1.5.
  TimeWeightedValue q;
  q.set(1_s, 2.0);
  q.set(3_s, 5.0);
  q.set(4_s, 1.0);
  CHECK(q.integral(10_s) == 15.0);
  CHECK(q.mean(10_s) == 1.5);
  CHECK(q.integral(4_s) == 9.0);
  CHECK(q.mean(4_s) == 2.25);
  CHECK(q.max() == 5.0);
  CHECK(q.min() == 0.0);
  CHECK(q.current() == 1.0);
  CHECK(q.last_update() == 4_s);

  // Queried before the last set, the same function gives the partial integral.
  TimeWeightedValue partial;
  partial.set(1_s, 2.0);
  partial.set(3_s, 5.0);
  CHECK(partial.integral(3500_ms) == 6.5);
  CHECK(partial.mean(3500_ms) == doctest::Approx(6.5 / 3.5).epsilon(1e-15));
}

TEST_CASE("stats: TimeWeightedValue with a late start, same-time sets and reset") {
  // Starts at 2 s holding 4; at 2 s it goes to 10 and back to 3 in the same instant, so the
  // 10 lasts no time (but is the maximum); 3 on [2 s, 6 s), then -1 on [6 s, 8 s].
  TimeWeightedValue q(2_s, 4.0);
  CHECK(q.mean(2_s) == 4.0);
  q.set(2_s, 10.0);
  q.set(2_s, 3.0);
  q.set(6_s, -1.0);
  CHECK(q.integral(8_s) == 10.0);  // 12 - 2
  CHECK(q.mean(8_s) == doctest::Approx(10.0 / 6.0).epsilon(1e-15));
  CHECK(q.max() == 10.0);
  CHECK(q.min() == -1.0);
  CHECK(q.start() == 2_s);

  q.reset(7_s);
  CHECK(q.start() == 7_s);
  CHECK(q.integral(9_s) == -2.0);
  CHECK(q.max() == -1.0);
  CHECK(q.min() == -1.0);
}

TEST_CASE("stats: TimeWeightedValue integrates ten million short steps without drift") {
  // 0.1 held for 1 ns, 10^7 times, then 0: 10^6 value.ns = 1e-3 value.s. A plain double sum
  // of the 10^7 products is off by about 1.6e-10 relative, far outside this tolerance.
  TimeWeightedValue q;
  constexpr std::int64_t kSteps = 10'000'000;
  for (std::int64_t i = 0; i < kSteps; ++i) q.set(SimTime::from_ns(i), 0.1);
  q.set(SimTime::from_ns(kSteps), 0.0);
  CHECK(q.integral(SimTime::from_ns(2 * kSteps)) == doctest::Approx(1e-3).epsilon(1e-15));
  CHECK(q.mean(SimTime::from_ns(kSteps)) == doctest::Approx(0.1).epsilon(1e-15));
}

TEST_CASE("stats: TimeWeightedValue rejects time going backwards, naming both times") {
  TimeWeightedValue q;
  q.set(3_s, 1.0);
  try {
    q.set(1_s, 2.0);
    FAIL("set() into the past did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("1.000000000 s") != std::string::npos);
    CHECK(what.find("3.000000000 s") != std::string::npos);
  }
  CHECK(q.current() == 1.0);  // the failed set changed nothing
  CHECK_THROWS_AS(q.integral(2_s), std::invalid_argument);
  CHECK_THROWS_AS(q.mean(2_s), std::invalid_argument);
  CHECK_THROWS_AS(q.reset(2_s), std::invalid_argument);
}

TEST_CASE("stats: LogHistogram on 1..1000000 is within its error bound at every checked quantile") {
  for (const int bits : {1, 3, 7, 10}) {
    CAPTURE(bits);
    LogHistogram h(bits);
    constexpr std::uint64_t kN = 1'000'000;
    for (std::uint64_t v = 1; v <= kN; ++v) h.add(v);
    const double bound = h.relative_error_bound();
    CHECK(bound == std::ldexp(1.0, -bits));
    CHECK(h.count() == kN);
    CHECK(h.min() == 1);
    CHECK(h.max() == kN);
    CHECK(h.mean() == 500000.5);  // exact: sum 500000500000 over 10^6

    // The k-th smallest of 1..n is k, so the nearest-rank quantile at p = k / 10000 is 100 k.
    double worst = 0.0;
    for (int k = 0; k <= 10000; ++k) {
      const std::uint64_t exact = k == 0 ? 1 : static_cast<std::uint64_t>(k) * 100;
      const std::uint64_t reported = h.quantile(k / 10000.0);
      CAPTURE(k);
      CAPTURE(reported);
      CHECK(within_bound(reported, exact, bound));
      worst = std::max(
          worst, std::fabs(static_cast<double>(reported) - static_cast<double>(exact)) / static_cast<double>(exact));
    }
    CHECK(within_bound(h.p50(), 500'000, bound));
    CHECK(within_bound(h.p90(), 900'000, bound));
    CHECK(within_bound(h.p99(), 990'000, bound));
    CHECK(within_bound(h.p999(), 999'000, bound));
    CHECK(within_bound(h.quantile(0.9999), 999'900, bound));
    CHECK(h.quantile(0.0) == 1);
    CHECK(h.quantile(1.0) == kN);  // the extreme ranks are exact
    CHECK(h.quantile(1e-7) == 1);
    // The buckets really are coarse: the bound is used, not just met by storing everything.
    CHECK(worst > bound / 4);
  }
}

TEST_CASE("stats: LogHistogram stores values below 2^sub_bucket_bits exactly") {
  LogHistogram h;                                           // 7 bits: 0..127 exact
  for (std::uint64_t v = 0; v < 128; ++v) h.add(v, v + 1);  // v appears v + 1 times
  // Cumulative count up to v is (v + 1)(v + 2) / 2; check every rank boundary.
  std::uint64_t cumulative = 0;
  for (std::uint64_t v = 0; v < 128; ++v) {
    cumulative += v + 1;
    const double p = static_cast<double>(cumulative) / static_cast<double>(h.count());
    CAPTURE(v);
    CHECK(h.quantile(p) == v);
  }
  CHECK(h.count() == 128 * 129 / 2);
}

TEST_CASE("stats: LogHistogram and ExactQuantiles on exponential samples match the closed form") {
  // X ~ Exp(mean 1e6 ns): the p-quantile is -ln(1 - p) * mean. The sample quantile's standard
  // error is sqrt(p (1 - p) / n) / f(x_p) with f(x_p) = (1 - p) / mean, i.e. a relative error
  // of sqrt(p / ((1 - p) n)) / -ln(1 - p): 0.32% at p50, 0.29% at p90 and 0.48% at p99 for
  // n = 200,000. The tolerances (2%, 2%, 5%) are over 4 standard errors plus the histogram's
  // 0.78% bound, so with a fixed seed the test is deterministic and would still pass for any
  // other; an off-by-a-bucket or wrong-rank bug, or a wrong sampler, moves these far more.
  constexpr double kMean = 1e6;
  constexpr int kSamples = 200'000;
  RandomStream stream(42, 7);
  LogHistogram h;
  ExactQuantiles exact;
  ExactQuantiles exact_rounded;
  exact.reserve(kSamples);
  exact_rounded.reserve(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    const double x = stream.exponential(kMean);
    const auto ns = static_cast<std::uint64_t>(std::llround(x));
    exact.add(x);
    exact_rounded.add(static_cast<double>(ns));
    h.add(ns);
  }
  const auto closed_form = [&](double p) { return -std::log1p(-p) * kMean; };
  struct Case {
    double p;
    double tolerance;
  };
  for (const Case c : {Case{0.50, 0.02}, Case{0.90, 0.02}, Case{0.99, 0.05}}) {
    CAPTURE(c.p);
    const double expected = closed_form(c.p);
    CHECK(exact.quantile(c.p) == doctest::Approx(expected).epsilon(c.tolerance));
    CHECK(static_cast<double>(h.quantile(c.p)) == doctest::Approx(expected).epsilon(c.tolerance));
    // Against the exact order statistic of the same integers the histogram is held to its
    // 0.78% bound, with no sampling error involved.
    const auto exact_value = static_cast<std::uint64_t>(exact_rounded.quantile(c.p));
    CHECK(within_bound(h.quantile(c.p), exact_value, h.relative_error_bound()));
  }
  CHECK(within_bound(h.p999(), static_cast<std::uint64_t>(exact_rounded.p999()), h.relative_error_bound()));
  // The sample mean's standard error is mean / sqrt(n) = 0.22%; 1.5% is almost 7 of them.
  CHECK(exact.mean() == doctest::Approx(kMean).epsilon(0.015));
  CHECK(h.mean() == doctest::Approx(exact_rounded.mean()).epsilon(1e-12));
  CHECK(h.min() == static_cast<std::uint64_t>(exact_rounded.min()));
  CHECK(h.max() == static_cast<std::uint64_t>(exact_rounded.max()));
}

TEST_CASE("stats: LogHistogram merge equals one histogram fed both inputs") {
  LogHistogram a, b, both;
  RandomStream stream(42, 3);
  for (int i = 0; i < 50'000; ++i) {
    const auto v = static_cast<std::uint64_t>(std::llround(stream.exponential(5e3)));
    a.add(v);
    both.add(v);
  }
  for (int i = 0; i < 30'000; ++i) {
    const std::uint64_t v = stream.uniform_below(std::uint64_t{1} << 40);
    const std::uint64_t times = 1 + stream.uniform_below(3);
    b.add(v, times);
    both.add(v, times);
  }
  LogHistogram merged = a;
  merged.merge(b);
  CHECK(merged == both);
  CHECK_FALSE(merged == a);
  CHECK(merged.count() == both.count());
  CHECK(merged.min() == both.min());
  CHECK(merged.max() == both.max());
  CHECK(merged.mean() == both.mean());
  for (int k = 0; k <= 1000; ++k) CHECK(merged.quantile(k / 1000.0) == both.quantile(k / 1000.0));

  // Order does not matter, and empty histograms are identities.
  LogHistogram other_way = b;
  other_way.merge(a);
  CHECK(other_way == both);
  LogHistogram empty;
  merged.merge(empty);
  CHECK(merged == both);
  empty.merge(both);
  CHECK(empty == both);

  // Merging with itself doubles every count.
  LogHistogram self;
  self.add(5);
  self.add(1000);
  self.merge(self);
  LogHistogram twice;
  twice.add(5, 2);
  twice.add(1000, 2);
  CHECK(self == twice);
}

TEST_CASE("stats: LogHistogram handles the extremes of uint64") {
  LogHistogram h;
  h.add(kU64Max, 3);
  h.add(0);
  CHECK(h.min() == 0);
  CHECK(h.max() == kU64Max);
  CHECK(h.quantile(0.0) == 0);
  CHECK(h.quantile(1.0) == kU64Max);
  // Rank 2 falls in the top bucket, [2^64 - 2^57, 2^64); its midpoint is within 2^-7.
  CHECK(h.quantile(0.5) == kU64Max - (std::uint64_t{1} << 56) + 1);
  CHECK(within_bound(h.quantile(0.5), kU64Max, h.relative_error_bound()));
  // 3 (2^64 - 1) / 4 exactly, rounded once to double.
  CHECK(h.mean() == static_cast<double>(static_cast<long double>(kU64Max) * 3.0L / 4.0L));

  LogHistogram full;
  full.add(1, kU64Max);
  CHECK_THROWS_AS(full.add(1), std::overflow_error);
  CHECK(full.count() == kU64Max);  // the failed add changed nothing
  CHECK_THROWS_AS(full.merge(full), std::overflow_error);
}

TEST_CASE("stats: LogHistogram rejects bad input") {
  CHECK_THROWS_AS(LogHistogram(0), std::invalid_argument);
  CHECK_THROWS_AS(LogHistogram(LogHistogram::kMaxSubBucketBits + 1), std::invalid_argument);
  LogHistogram seven(7), eight(8);
  seven.add(10);
  eight.add(10);
  CHECK_THROWS_AS(seven.merge(eight), std::invalid_argument);
  CHECK(seven.count() == 1);
  LogHistogram empty;
  CHECK_THROWS_AS(empty.quantile(0.5), std::logic_error);
  CHECK_THROWS_AS(empty.min(), std::logic_error);
  CHECK_THROWS_AS(empty.mean(), std::logic_error);
  CHECK_THROWS_AS(seven.quantile(-1e-9), std::invalid_argument);
  CHECK_THROWS_AS(seven.quantile(1.0 + 1e-9), std::invalid_argument);
  CHECK_THROWS_AS(seven.quantile(std::nan("")), std::invalid_argument);
  CHECK(seven.quantile(1.0) == 10);
}
