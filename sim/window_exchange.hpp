// WindowExchange: how partitions hand each other events across a window's barrier and
// agree where the next window starts.
//
// This is the only seam between the windowed scheduler and the way partitions are spread
// over threads or machines. In one process, ThreadExchange moves events through memory;
// an MPI implementation would send the sealed events to the owning rank and reduce the
// minimum time with an all-reduce, and the scheduler would not change.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/event.hpp"
#include "sim/event_queue.hpp"

namespace fathom::sim {

using PartitionId = std::uint32_t;

class WindowExchange {
 public:
  virtual ~WindowExchange() = default;
  // During a window: partition `from` sends `event` (time at or after the window's end) to
  // partition `to`. Each partition posts only under its own `from`, so partitions may post
  // concurrently.
  virtual void post(PartitionId from, PartitionId to, const Event& event) = 0;
  // At the barrier, with every partition idle: seal what was posted in the window and return
  // the earliest pending event time anywhere, given the least time in the local partitions'
  // queues (SimTime::max() when they are empty).
  virtual SimTime end_window(SimTime local_least) = 0;
  // Before the next window, in partition `to`'s own task: move the events sealed for it into
  // its queue. Partitions may collect concurrently.
  virtual void collect(PartitionId to, EventQueue& queue) = 0;
  // Events that crossed partitions so far.
  virtual std::uint64_t events_exchanged() const = 0;
};

// The in-memory exchange for partitions run by threads of one process. Outboxes are double
// buffered by window parity: events posted in window w are collected during window w+1
// while that window's own posts go to the other buffer, so no lock is needed.
class ThreadExchange final : public WindowExchange {
 public:
  explicit ThreadExchange(PartitionId partitions);

  void post(PartitionId from, PartitionId to, const Event& event) override {
    Outboxes& open = buffers_[open_];
    open.boxes[from * partitions_ + to].push_back(event);
    SimTime& least = open.least_posted[from];
    if (event.time < least) least = event.time;
  }
  SimTime end_window(SimTime local_least) override;
  void collect(PartitionId to, EventQueue& queue) override;
  std::uint64_t events_exchanged() const override { return exchanged_; }

 private:
  struct Outboxes {
    std::vector<std::vector<Event>> boxes;  // [from * partitions + to]
    std::vector<SimTime> least_posted;      // per sender
  };
  PartitionId partitions_;
  Outboxes buffers_[2];
  unsigned open_ = 0;  // the buffer posts go to; the other one is sealed
  std::uint64_t exchanged_ = 0;
};

}  // namespace fathom::sim
