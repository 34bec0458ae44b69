// Stragglers (stragglers.hpp): the expected maximum of n standard normals against its closed
// forms and published values, the factor it gives a step, and the step that waits for it.
#include "models/workloads/training/stragglers.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace fathom::train;

TEST_CASE("the expected maximum of n standard normals: closed forms for n <= 3, tabulated values beyond") {
  CHECK(expected_max_standard_normal(1) == 0);
  // n = 2: 1/sqrt(pi); n = 3: 3/(2 sqrt(pi)) (David & Nagaraja, Order Statistics).
  CHECK(expected_max_standard_normal(2) == doctest::Approx(1 / std::sqrt(M_PI)).epsilon(1e-7));
  CHECK(expected_max_standard_normal(3) == doctest::Approx(3 / (2 * std::sqrt(M_PI))).epsilon(1e-7));
  // Tabulated expected maxima (Harter 1961, "Expected values of normal order statistics").
  CHECK(expected_max_standard_normal(5) == doctest::Approx(1.162964).epsilon(1e-6));
  CHECK(expected_max_standard_normal(10) == doctest::Approx(1.538753).epsilon(1e-6));
  CHECK(expected_max_standard_normal(100) == doctest::Approx(2.507594).epsilon(1e-6));
  // It grows with n, ever more slowly (about sqrt(2 ln n)).
  double previous = 0;
  for (long long n : {2LL, 8LL, 64LL, 512LL, 4096LL, 16384LL, 100000LL}) {
    const double e = expected_max_standard_normal(n);
    CHECK(e > previous);
    CHECK(e < std::sqrt(2 * std::log(static_cast<double>(n))));
    previous = e;
  }
  CHECK_THROWS_AS(expected_max_standard_normal(0), std::invalid_argument);
}

TEST_CASE("straggler_factor: 1 + sigma e_n, sigma the two spreads combined, 1 when off or alone") {
  StragglerSpec s;
  s.speed_spread = 0.03;
  s.jitter = 0.04;
  CHECK(straggler_factor(s, 1) == 1);
  CHECK(straggler_factor(s, 100) == doctest::Approx(1 + 0.05 * 2.507594).epsilon(1e-7));
  s.jitter = 0;
  CHECK(straggler_factor(s, 2) == doctest::Approx(1 + 0.03 / std::sqrt(M_PI)).epsilon(1e-9));
  s.enabled = false;
  CHECK(straggler_factor(s, 16384) == 1);
  s.enabled = true;
  s.speed_spread = -0.01;
  CHECK_THROWS_AS(straggler_factor(s, 8), std::invalid_argument);
  CHECK_THROWS_AS(straggler_factor(StragglerSpec{}, 0), std::invalid_argument);
}
