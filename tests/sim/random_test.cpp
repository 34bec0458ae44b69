#include "sim/random.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using fathom::sim::philox4x32_10;
using fathom::sim::RandomStream;

// Known-answer vectors published with Random123 (kat_vectors, philox4x32 with 10 rounds).
TEST_CASE("philox4x32-10 reproduces the Random123 known-answer vectors") {
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
        std::array<std::uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  CHECK(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}) ==
        std::array<std::uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}) ==
        std::array<std::uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("a random stream is a pure function of seed, stream and position") {
  RandomStream a(7, 3), b(7, 3), other_stream(7, 4), other_seed(8, 3);
  std::vector<std::uint64_t> xa, xb;
  for (int i = 0; i < 100; ++i) xa.push_back(a.next_u64());
  // Interleaving draws of other streams changes nothing: streams share no state.
  for (int i = 0; i < 100; ++i) {
    (void)other_stream.next_u64();
    xb.push_back(b.next_u64());
    (void)other_seed.next_u64();
  }
  CHECK(xa == xb);
  CHECK(a.draws() == 100);
  RandomStream c(7, 4), d(8, 3);
  int same_stream = 0, same_seed = 0;
  for (int i = 0; i < 100; ++i) {
    same_stream += c.next_u64() == xa[static_cast<std::size_t>(i)];
    same_seed += d.next_u64() == xa[static_cast<std::size_t>(i)];
  }
  CHECK(same_stream == 0);
  CHECK(same_seed == 0);
}

TEST_CASE("uniform and exponential draws match their moments") {
  RandomStream r(2026, 11);
  const int n = 400000;
  double sum = 0, sum2 = 0, exp_sum = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform01();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    sum2 += u * u;
    exp_sum += r.exponential(3.0);
  }
  // Standard errors: uniform mean 0.29/sqrt(n) = 4.6e-4; exponential mean 3/sqrt(n) = 4.7e-3.
  // Tolerances are 5 standard errors.
  CHECK(sum / n == doctest::Approx(0.5).epsilon(0.0023 / 0.5));
  CHECK(sum2 / n - (sum / n) * (sum / n) == doctest::Approx(1.0 / 12).epsilon(0.01));
  CHECK(exp_sum / n == doctest::Approx(3.0).epsilon(0.024 / 3.0));
}

TEST_CASE("uniform_below is unbiased and stays in range") {
  RandomStream r(5, 5);
  std::vector<int> hits(7, 0);
  const int n = 70000;
  for (int i = 0; i < n; ++i) {
    const auto k = r.uniform_below(7);
    REQUIRE(k < 7);
    ++hits[k];
  }
  // Chi-square with 6 degrees of freedom: 22.5 is its 99.9th percentile.
  double chi2 = 0;
  for (int h : hits) chi2 += (h - n / 7.0) * (h - n / 7.0) / (n / 7.0);
  CHECK(chi2 < 22.5);
  CHECK(r.uniform_below(1) == 0);
}
