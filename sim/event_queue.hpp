// EventQueue: the pending-event set of one partition, a 4-ary min-heap of events stored in
// place, ordered by the engine's total order (sim/event.hpp).
//
// Chosen by measurement (bench/RESULTS.md): on PHOLD inside the engine it beat a binary
// heap, a radix heap with vector buckets (fast alone, but every bucket keeps the capacity
// of its busiest moment: ~550 bytes of storage per pending event) and a radix heap with
// linked buckets (compact, but spreading a bucket chases pointers). A 4-ary heap has half
// the depth of a binary one and its four children share cache lines. It stores one 48-byte
// event per pending event, plus at most a quarter more for growth, and keeps its capacity,
// so steady state allocates nothing. The candidates live in bench/queues/ with their
// benchmark.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sim/event.hpp"

namespace fathom::sim {

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // Sift-up: parents move down until the new event finds its place.
  void push(const Event& e) {
    std::size_t i = heap_.size();
    // Grow by a quarter, not the usual doubling, so storage stays within 1.25 events per
    // pending event; growth stays amortised O(1) and stops once the queue's peak is reached.
    if (i == heap_.capacity()) heap_.reserve(i + i / 4 + 64);
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!precedes(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Time of the least pending event. Precondition: !empty().
  SimTime min_time() const { return heap_.front().time; }
  // Removes and returns the least event. Precondition: !empty().
  Event pop() {
    const Event top = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t stop = std::min(first + 4, n);
      for (std::size_t c = first + 1; c < stop; ++c) {
        if (precedes(heap_[c], heap_[best])) best = c;
      }
      if (!precedes(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }
  // Bytes held by the queue's storage, for the memory-per-event figure.
  std::size_t capacity_bytes() const { return sizeof(*this) + heap_.capacity() * sizeof(Event); }

 private:
  std::vector<Event> heap_;
};

}  // namespace fathom::sim
