// RadixListQueue: a candidate event queue measured against the engine's 4-ary heap
// (bench/event_queue_bench.cpp): a radix heap on integer time whose buckets are linked lists
// through one pool of event nodes.
//
// A radix heap exploits two facts of a conservative simulator: times are integers, and
// nothing is scheduled before the last event taken out ("the floor"). Bucket b >= 1 holds
// the events whose time first differs from the floor at bit b-1; bucket 0 holds those at
// the floor, as a heap on the tie-breakers. Linking nodes keeps storage at one node per
// pending event, but spreading a bucket chases pointers through the pool, which made it
// slower than the 4-ary heap inside the engine.
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

class RadixListQueue {
 public:
  RadixListQueue() {
    heads_.fill(kNone);
    bucket_least_.fill(~std::uint64_t{0});
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Precondition: e.time >= floor() (the engine's causality checks guarantee it).
  void push(const Event& e) {
    const std::uint32_t n = allocate(e);
    const auto key = static_cast<std::uint64_t>(e.time.ns());
    const int b = bucket_of(key ^ floor_);
    if (b == 0) {
      at_floor_.push_back(n);
      std::push_heap(at_floor_.begin(), at_floor_.end(), runs_later_);
    } else {
      link(b, n, key);
    }
    ++size_;
  }

  // Time of the least pending event. Precondition: !empty(). Unlike pop() it never moves
  // the floor, so events earlier than the least pending one may still be pushed afterwards
  // (a partition that is idle in this window receives events for the next one).
  SimTime min_time() const {
    const std::uint64_t t =
        at_floor_.empty() ? bucket_least_[static_cast<std::size_t>(std::countr_zero(nonempty_))] : floor_;
    return SimTime::from_ns(static_cast<std::int64_t>(t));
  }

  // Removes and returns the least event in the total order of sim/event.hpp. Precondition: !empty().
  Event pop() {
    if (at_floor_.empty()) refill_floor();
    std::pop_heap(at_floor_.begin(), at_floor_.end(), runs_later_);
    const std::uint32_t n = at_floor_.back();
    at_floor_.pop_back();
    --size_;
    const Event e = nodes_[n].event;
    nodes_[n].next = free_;
    free_ = n;
    return e;
  }

  // Time of the last event popped: nothing earlier may be pushed.
  SimTime floor() const { return SimTime::from_ns(static_cast<std::int64_t>(floor_)); }

  // Bytes held by the queue's storage, for the memory-per-event figure.
  std::size_t capacity_bytes() const {
    return sizeof(*this) + nodes_.capacity() * sizeof(Node) + at_floor_.capacity() * sizeof(std::uint32_t);
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  struct Node {
    Event event;
    std::uint32_t next;  // next node of the same bucket, or of the free list
  };

  // Orders node indices so that the heap's front is the least event.
  struct RunsLater {
    const std::vector<Node>* nodes;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return precedes((*nodes)[b].event, (*nodes)[a].event); }
  };

  static int bucket_of(std::uint64_t differing_bits) {
    return differing_bits == 0 ? 0 : 64 - std::countl_zero(differing_bits);
  }

  std::uint32_t allocate(const Event& e) {
    std::uint32_t n = free_;
    if (n != kNone) {
      free_ = nodes_[n].next;
      nodes_[n].event = e;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{e, kNone});
      runs_later_.nodes = &nodes_;  // the pool may have moved
    }
    return n;
  }

  void link(int b, std::uint32_t n, std::uint64_t key) {
    const auto i = static_cast<std::size_t>(b);
    nodes_[n].next = heads_[i];
    heads_[i] = n;
    bucket_least_[i] = std::min(bucket_least_[i], key);
    nonempty_ |= std::uint64_t{1} << b;
  }

  // Bucket 0 is empty: raise the floor to the least pending time and spread the lowest
  // non-empty bucket below it. Every event of that bucket lands lower, because it shares
  // with the new floor all bits above the bucket's own.
  void refill_floor() {
    const int from = std::countr_zero(nonempty_);
    const auto src = static_cast<std::size_t>(from);
    floor_ = bucket_least_[src];
    std::uint32_t n = heads_[src];
    heads_[src] = kNone;
    bucket_least_[src] = ~std::uint64_t{0};
    nonempty_ &= ~(std::uint64_t{1} << from);
    while (n != kNone) {
      const std::uint32_t next = nodes_[n].next;
      const auto key = static_cast<std::uint64_t>(nodes_[n].event.time.ns());
      const int b = bucket_of(key ^ floor_);
      if (b == 0) {
        at_floor_.push_back(n);
      } else {
        link(b, n, key);
      }
      n = next;
    }
    if (at_floor_.size() > 1) std::make_heap(at_floor_.begin(), at_floor_.end(), runs_later_);
  }

  std::vector<Node> nodes_;                     // the pool: one node per pending event, plus freed ones
  std::uint32_t free_ = kNone;                  // free list through Node::next
  std::vector<std::uint32_t> at_floor_;         // bucket 0: heap of nodes at time == floor_
  std::array<std::uint32_t, 64> heads_;         // buckets 1..63 (entry 0 unused)
  std::array<std::uint64_t, 64> bucket_least_;  // least time in each bucket
  std::uint64_t nonempty_ = 0;                  // bit b set when bucket b >= 1 holds events
  std::uint64_t floor_ = 0;
  std::size_t size_ = 0;
  RunsLater runs_later_{&nodes_};
};

}  // namespace fathom::bench
