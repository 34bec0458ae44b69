// RadixVectorQueue: a candidate event queue measured against the engine's 4-ary heap
// (bench/event_queue_bench.cpp): a radix heap on integer time with one vector per bucket.
//
// Bucket b >= 1 holds the events whose time first differs from the floor (the last time
// popped) at bit b-1; bucket 0 holds those at the floor, as a heap on the tie-breakers.
// Fastest alone on PHOLD, but every bucket keeps the capacity of its busiest moment, about
// ten times the storage of the events actually pending, which rules it out.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.hpp"

namespace fathom::bench {
using sim::Event;
using sim::precedes;
using sim::SimTime;

class RadixVectorQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Precondition: e.time >= floor() (the engine's causality checks guarantee it).
  void push(const Event& e) {
    const auto key = static_cast<std::uint64_t>(e.time.ns());
    const int b = bucket_of(key ^ floor_);
    if (b == 0) {
      buckets_[0].push_back(e);
      std::push_heap(buckets_[0].begin(), buckets_[0].end(), runs_later);
    } else {
      buckets_[static_cast<std::size_t>(b)].push_back(e);
      if (min_known_ && key < min_) min_ = key;
    }
    nonempty_ |= std::uint64_t{1} << b;
    ++size_;
  }

  // Time of the least pending event. Precondition: !empty(). Unlike pop() it never moves
  // the floor, so events earlier than the least pending one may still be pushed afterwards
  // (a partition that is idle in this window receives events for the next one).
  SimTime min_time() {
    if (nonempty_ & 1) return SimTime::from_ns(static_cast<std::int64_t>(floor_));
    if (!min_known_) {
      const auto& bucket = buckets_[static_cast<std::size_t>(std::countr_zero(nonempty_))];
      std::uint64_t m = ~std::uint64_t{0};
      for (const Event& e : bucket) m = std::min(m, static_cast<std::uint64_t>(e.time.ns()));
      min_ = m;
      min_known_ = true;
    }
    return SimTime::from_ns(static_cast<std::int64_t>(min_));
  }

  // Removes and returns the least event in the total order of sim/event.hpp. Precondition: !empty().
  Event pop() {
    if (!(nonempty_ & 1)) refill_floor_bucket();
    auto& floor_bucket = buckets_[0];
    std::pop_heap(floor_bucket.begin(), floor_bucket.end(), runs_later);
    const Event e = floor_bucket.back();
    floor_bucket.pop_back();
    if (floor_bucket.empty()) nonempty_ &= ~std::uint64_t{1};
    --size_;
    return e;
  }

  // Time of the last event popped: nothing earlier may be pushed.
  SimTime floor() const { return SimTime::from_ns(static_cast<std::int64_t>(floor_)); }

  // Bytes held by the buckets' storage, for the memory-per-event figure.
  std::size_t capacity_bytes() const {
    std::size_t bytes = sizeof(*this);
    for (const auto& b : buckets_) bytes += b.capacity() * sizeof(Event);
    return bytes;
  }

 private:
  static int bucket_of(std::uint64_t differing_bits) {
    return differing_bits == 0 ? 0 : 64 - std::countl_zero(differing_bits);
  }
  static bool runs_later(const Event& a, const Event& b) { return precedes(b, a); }

  // Bucket 0 is empty: raise the floor to the least pending time and spread the lowest
  // non-empty bucket over the buckets below it. Every event of that bucket lands lower,
  // because it shares with the new floor all bits above the bucket's own.
  void refill_floor_bucket() {
    const std::uint64_t least = static_cast<std::uint64_t>(min_time().ns());
    const int from = std::countr_zero(nonempty_);
    auto& source = buckets_[static_cast<std::size_t>(from)];
    floor_ = least;
    for (const Event& e : source) {
      const int b = bucket_of(static_cast<std::uint64_t>(e.time.ns()) ^ least);
      buckets_[static_cast<std::size_t>(b)].push_back(e);
      nonempty_ |= std::uint64_t{1} << b;
    }
    source.clear();
    nonempty_ &= ~(std::uint64_t{1} << from);
    auto& floor_bucket = buckets_[0];
    if (floor_bucket.size() > 1) std::make_heap(floor_bucket.begin(), floor_bucket.end(), runs_later);
    min_known_ = false;
  }

  // Times are non-negative, so key ^ floor < 2^63 and buckets 0..63 suffice.
  std::array<std::vector<Event>, 64> buckets_;
  std::uint64_t nonempty_ = 0;  // bit b set when buckets_[b] holds events
  std::uint64_t floor_ = 0;
  std::uint64_t min_ = 0;  // least time in the buckets above 0, valid when min_known_
  bool min_known_ = false;
  std::size_t size_ = 0;
};

}  // namespace fathom::bench
