// A service's availability: the simulation against the k-of-n Markov chain's closed form, and
// failover's outages.
#include "models/reliability/availability.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace fathom::rel;

TEST_CASE("the k-of-n tail is the birth-death chain's stationary probability") {
  // Two replicas, one needed: down only when both are: 1 - (1-p)^2.
  CHECK(k_of_n_availability(2, 1, 0.99) == doctest::Approx(1 - 0.01 * 0.01));
  // Three, two needed: p^3 + 3 p^2 (1-p).
  const double p = 0.98;
  CHECK(k_of_n_availability(3, 2, p) == doctest::Approx(p * p * p + 3 * p * p * (1 - p)));
  CHECK(k_of_n_availability(4, 4, p) == doctest::Approx(std::pow(p, 4)));
  ServiceSpec s;
  s.replicas = 3;
  s.needed = 2;
  s.mtbf_s = 1000 * 3600.0;
  s.repair_s = 24 * 3600.0;
  s.depends_on = {{"storage", 5000 * 3600.0, 4 * 3600.0}};
  const double rep = 1000.0 / 1024.0;
  CHECK(closed_form_availability(s) ==
        doctest::Approx((rep * rep * rep + 3 * rep * rep * (1 - rep)) * (5000.0 / 5004.0)));
}

TEST_CASE("simulated availability equals the closed form within its interval") {
  ServiceSpec s;
  s.replicas = 3;
  s.needed = 2;
  s.mtbf_s = 1000 * 3600.0;
  s.repair_s = 24 * 3600.0;
  s.depends_on = {{"storage", 5000 * 3600.0, 4 * 3600.0}, {"network", 20000 * 3600.0, 2 * 3600.0}};
  s.horizon_s = 200 * 365.25 * 86'400;
  s.replications = 40;
  const AvailabilityResult r = service_availability(s, 3);
  REQUIRE(r.closed_form.has_value());
  INFO("simulated " << r.simulated.mean << " +- " << r.simulated.half_width << ", closed form " << *r.closed_form);
  CHECK(std::abs(r.simulated.mean - *r.closed_form) <= 2 * r.simulated.half_width);
  CHECK(r.simulated.half_width < 1e-4);
  CHECK(*r.closed_form_downtime_s == doctest::Approx((1 - *r.closed_form) * 365.25 * 86'400));
}

TEST_CASE("failover: each serving replica's failure costs its window, and no closed form is claimed") {
  // Two replicas, one serving; repairs are quick, so the service is nearly always up but loses a
  // failover window each time the serving replica fails: once per MTBF, so the downtime share is
  // failover / MTBF.
  ServiceSpec s;
  s.replicas = 2;
  s.needed = 1;
  s.mtbf_s = 100 * 3600.0;
  s.repair_s = 60.0;
  s.failover_s = 30.0;
  s.horizon_s = 100 * 365.25 * 86'400;
  s.replications = 20;
  const AvailabilityResult r = service_availability(s, 1);
  CHECK_FALSE(r.closed_form.has_value());
  const double expected_down = 30.0 / (100 * 3600.0);  // the serving one's failures
  CHECK(1 - r.simulated.mean == doctest::Approx(expected_down).epsilon(0.05));
  CHECK_THROWS_AS(closed_form_availability(s), std::invalid_argument);
  s.needed = 3;
  CHECK_THROWS_AS(service_availability(s, 1), std::invalid_argument);
}
