#include "sim/time.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>

using fathom::sim::SimTime;
using namespace fathom::sim::literals;

TEST_CASE("SimTime converts to and from seconds, rounding to the nearest nanosecond") {
  CHECK(SimTime::from_seconds(1.5).ns() == 1'500'000'000);
  CHECK(SimTime::from_seconds(1e-9).ns() == 1);
  CHECK(SimTime::from_seconds(0.4e-9).ns() == 0);
  CHECK(SimTime::from_seconds(0.6e-9).ns() == 1);
  CHECK(SimTime::from_seconds(-2e-6).ns() == -2000);
  CHECK(SimTime::from_ns(2'500'000'000).to_seconds() == doctest::Approx(2.5));
  CHECK_THROWS_AS(SimTime::from_seconds(std::numeric_limits<double>::quiet_NaN()), std::out_of_range);
  CHECK_THROWS_AS(SimTime::from_seconds(1e11), std::out_of_range);  // 3,170 years
  CHECK_NOTHROW(SimTime::from_seconds(9e9));                        // 285 years
}

TEST_CASE("SimTime literals and arithmetic are exact integers") {
  CHECK((3_s).ns() == 3'000'000'000);
  CHECK((2_ms + 5_us + 7_ns).ns() == 2'005'007);
  CHECK((10_us - 3_us) == 7_us);
  CHECK(4 * 250_ns == 1_us);
  CHECK(1_ns < 2_ns);
  CHECK(SimTime::saturating_add(SimTime::max() - 5_ns, 10_ns) == SimTime::max());
  CHECK(SimTime::saturating_add(1_s, 1_s) == 2_s);
}

TEST_CASE("SimTime arithmetic past the clock's range throws TimeOutOfRange, never wraps") {
  using fathom::sim::TimeOutOfRange;
  const SimTime near_end = SimTime::max() - 1_s;
  CHECK((near_end + 500'000'000_ns).ns() == SimTime::max().ns() - 500'000'000);
  CHECK_THROWS_AS(near_end + 2_s, TimeOutOfRange);
  CHECK_THROWS_AS(SimTime::from_ns(std::numeric_limits<std::int64_t>::min()) - 1_ns, TimeOutOfRange);
  CHECK_THROWS_AS(SimTime::from_seconds(1e9) * 10, TimeOutOfRange);  // 317 years
  CHECK_THROWS_AS(10 * SimTime::from_seconds(1e9), TimeOutOfRange);
  SimTime t = near_end;
  CHECK_THROWS_AS(t += 2_s, TimeOutOfRange);
  CHECK(t == near_end);  // unchanged by the failed sum
  try {
    (void)(near_end + near_end);
    FAIL("no exception");
  } catch (const TimeOutOfRange& e) {
    CHECK(e.seconds() == doctest::Approx(2 * near_end.to_seconds()));  // what the sum would have been
  }
  CHECK(SimTime::saturating_add(near_end, 2_s) == SimTime::max());  // the explicit clamp stays
}

TEST_CASE("format_time prints the exact decimal") {
  CHECK(fathom::sim::format_time(SimTime::from_ns(12'345'678'901)) == "12.345678901 s");
  CHECK(fathom::sim::format_time(SimTime::from_ns(-5)) == "-0.000000005 s");
  CHECK(fathom::sim::format_time(SimTime::from_ns(std::numeric_limits<std::int64_t>::min())) ==
        "-9223372036.854775808 s");
}
