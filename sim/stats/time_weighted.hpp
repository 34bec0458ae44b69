// TimeWeightedValue: a piecewise-constant quantity over simulated time (a queue length, a
// link's utilisation, the bytes buffered in a switch) and its time integral, mean and range.
//
// The quantity holds each value from the time it is set until the next set(); its mean over
// [start, until] weighs every value by how long it was held, not by how often it was set.
// The integral is kept in value x nanoseconds, in long double with Neumaier compensation:
// a run sets a queue length millions of times, and a plain double sum of that many products
// would drift by parts in 10^10 and make the mean depend on how often the value changed.
#pragma once

#include <cmath>

#include "sim/time.hpp"

namespace fathom::sim {

class TimeWeightedValue {
 public:
  // Observation starts at `start` with the quantity at `initial`.
  explicit TimeWeightedValue(SimTime start = SimTime::zero(), double initial = 0.0)
      : start_(start), last_(start), value_(initial), min_(initial), max_(initial) {}

  // From time t on, the quantity is `value`. Times must not decrease; several sets at the
  // same time are allowed and only the last one is held (the earlier ones last zero time,
  // but still count towards min() and max(): a queue that reached 5 for an instant did
  // reach 5). Throws std::invalid_argument naming both times if t is before the last set.
  void set(SimTime t, double value) {
    if (t < last_) throw_backwards("set", t);
    accumulate(value_ * static_cast<long double>((t - last_).ns()));
    last_ = t;
    value_ = value;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }

  // Integral of the quantity over [start, until], in value x seconds (bytes x s, say).
  // Throws std::invalid_argument if until is before the last set.
  double integral(SimTime until) const { return static_cast<double>(integral_value_ns(until) / 1e9L); }

  // Time-weighted mean over [start, until]. For an empty interval (until == start) it is the
  // value held at start, the limit of the mean as the interval shrinks.
  double mean(SimTime until) const {
    const long double integral_ns = integral_value_ns(until);
    const std::int64_t duration_ns = (until - start_).ns();
    if (duration_ns == 0) return value_;
    return static_cast<double>(integral_ns / static_cast<long double>(duration_ns));
  }

  // Smallest and largest value the quantity has taken since start, the initial one included.
  double min() const { return min_; }
  double max() const { return max_; }
  double current() const { return value_; }
  SimTime start() const { return start_; }
  SimTime last_update() const { return last_; }

  // Starts a new observation window at t (after a warm-up, say): the integral restarts from
  // zero and min/max from the current value, which is held on.
  void reset(SimTime t) {
    if (t < last_) throw_backwards("reset", t);
    *this = TimeWeightedValue(t, value_);
  }

 private:
  // Neumaier's variant of Kahan summation: exact to within a few ulps of long double
  // whatever the order of magnitude of the terms.
  void accumulate(long double term) {
    const long double total = sum_ + term;
    if (std::fabs(sum_) >= std::fabs(term)) {
      compensation_ += (sum_ - total) + term;
    } else {
      compensation_ += (term - total) + sum_;
    }
    sum_ = total;
  }

  long double integral_value_ns(SimTime until) const {
    if (until < last_) throw_backwards("integral", until);
    return sum_ + compensation_ + value_ * static_cast<long double>((until - last_).ns());
  }

  [[noreturn]] void throw_backwards(const char* operation, SimTime t) const;

  SimTime start_;
  SimTime last_;
  double value_;
  double min_;
  double max_;
  long double sum_ = 0.0L;  // value x ns since start_, without the current segment
  long double compensation_ = 0.0L;
};

}  // namespace fathom::sim
