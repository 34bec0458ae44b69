// SimTime: simulated time as a signed 64-bit count of nanoseconds (292 years either way).
//
// Simulated time is an integer so that event order never depends on floating-point
// rounding: two runs, on any number of threads, see exactly the same clock values.
// Floating point enters only at the edges, through from_seconds() and to_seconds().
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace fathom::sim {

// A duration or instant that SimTime cannot hold (NaN, infinite, beyond +-292 years): a
// consequence of the input's magnitudes (a link of 1 bit/s, a petabyte), never of a bug. Front
// ends locate it at the input (scenario::refuse_beyond_clock).
class TimeOutOfRange : public std::out_of_range {
 public:
  explicit TimeOutOfRange(double seconds)
      : std::out_of_range("a time of " + std::to_string(seconds) +
                          " s is outside the +-292 years simulated time can hold"),
        seconds_(seconds) {}
  double seconds() const { return seconds_; }

 private:
  double seconds_;
};

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime from_ns(std::int64_t ns) { return SimTime(ns); }

  // Rounds to the nearest nanosecond; throws TimeOutOfRange for NaN, infinities and values
  // beyond the 64-bit range, so a unit error cannot silently wrap the clock.
  static SimTime from_seconds(double seconds) {
    const double ns = std::nearbyint(seconds * 1e9);
    if (!(ns >= -9.2e18 && ns <= 9.2e18)) throw TimeOutOfRange(seconds);
    return SimTime(static_cast<std::int64_t>(ns));
  }

  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t ns() const { return ns_; }
  // Division, not a multiplication by 1e-9 (which is inexact): 2000 ns prints as 2e-06 s.
  constexpr double to_seconds() const { return static_cast<double>(ns_) / 1e9; }

  // Arithmetic is checked: a sum past the clock's range throws TimeOutOfRange instead of
  // wrapping to a negative time (one overflow test per operation, a branch never taken).
  constexpr SimTime& operator+=(SimTime d) { return *this = *this + d; }
  constexpr SimTime& operator-=(SimTime d) { return *this = *this - d; }
  friend constexpr SimTime operator+(SimTime a, SimTime b) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a.ns_, b.ns_, &sum)) throw TimeOutOfRange(a.to_seconds() + b.to_seconds());
    return SimTime(sum);
  }
  friend constexpr SimTime operator-(SimTime a, SimTime b) {
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(a.ns_, b.ns_, &difference)) throw TimeOutOfRange(a.to_seconds() - b.to_seconds());
    return SimTime(difference);
  }
  friend constexpr SimTime operator*(SimTime a, std::int64_t k) {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(a.ns_, k, &product)) throw TimeOutOfRange(a.to_seconds() * static_cast<double>(k));
    return SimTime(product);
  }
  friend constexpr SimTime operator*(std::int64_t k, SimTime a) { return a * k; }
  friend constexpr auto operator<=>(SimTime, SimTime) = default;

  // a + b, clamped to max() instead of overflowing (used for "now + lookahead" near the end of time).
  static constexpr SimTime saturating_add(SimTime a, SimTime b) {
    if (b.ns_ > 0 && a.ns_ > std::numeric_limits<std::int64_t>::max() - b.ns_) return max();
    return SimTime(a.ns_ + b.ns_);
  }

 private:
  constexpr explicit SimTime(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// "12.345678901 s": exact decimal rendering of a time, for messages and reports.
std::string format_time(SimTime t);

namespace literals {
constexpr SimTime operator""_ns(unsigned long long v) { return SimTime::from_ns(static_cast<std::int64_t>(v)); }
constexpr SimTime operator""_us(unsigned long long v) { return SimTime::from_ns(static_cast<std::int64_t>(v) * 1'000); }
constexpr SimTime operator""_ms(unsigned long long v) {
  return SimTime::from_ns(static_cast<std::int64_t>(v) * 1'000'000);
}
constexpr SimTime operator""_s(unsigned long long v) {
  return SimTime::from_ns(static_cast<std::int64_t>(v) * 1'000'000'000);
}
}  // namespace literals

}  // namespace fathom::sim
