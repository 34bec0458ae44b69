// A binary heap of events: the classic event queue that the engine's 4-ary heap
// (sim/event_queue.hpp) was measured against in bench/event_queue_bench.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sim/event.hpp"

namespace fathom::bench {

// std::push_heap / std::pop_heap over events in place.
class BinaryHeapQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void push(const sim::Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), runs_later);
  }
  sim::SimTime min_time() const { return heap_.front().time; }
  sim::Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), runs_later);
    const sim::Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  std::size_t capacity_bytes() const { return sizeof(*this) + heap_.capacity() * sizeof(sim::Event); }

 private:
  static bool runs_later(const sim::Event& a, const sim::Event& b) { return sim::precedes(b, a); }
  std::vector<sim::Event> heap_;
};

}  // namespace fathom::bench
