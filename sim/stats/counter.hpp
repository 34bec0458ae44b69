// Counter: a monotone count of events (packets sent, bytes moved, retries) that an LP owns
// and that the end-of-run report sums across LPs with merge().
//
// Each LP keeps its own counters and they are merged after the run, so counting never
// needs an atomic or a lock and the total is the same under any scheduler.
#pragma once

#include <cstdint>

namespace fathom::sim {

class Counter {
 public:
  constexpr Counter() = default;
  constexpr explicit Counter(std::uint64_t initial) : value_(initial) {}

  // Unsigned arithmetic: a count past 2^64 - 1 wraps. At one event per simulated
  // nanosecond that takes 584 years, so no check is paid for on this hot path.
  constexpr void add(std::uint64_t n) { value_ += n; }
  constexpr void increment() { ++value_; }
  constexpr std::uint64_t value() const { return value_; }

  // Adds another counter's count to this one (the per-LP counters of one run, say).
  constexpr void merge(const Counter& other) { value_ += other.value_; }

  friend constexpr bool operator==(const Counter&, const Counter&) = default;

 private:
  std::uint64_t value_ = 0;
};

}  // namespace fathom::sim
