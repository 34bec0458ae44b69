#include "sim/window_exchange.hpp"

namespace fathom::sim {

ThreadExchange::ThreadExchange(PartitionId partitions) : partitions_(partitions) {
  for (auto& b : buffers_) {
    b.boxes.resize(static_cast<std::size_t>(partitions) * partitions);
    b.least_posted.assign(partitions, SimTime::max());
  }
}

SimTime ThreadExchange::end_window(SimTime local_least) {
  Outboxes& open = buffers_[open_];
  SimTime least = local_least;
  for (SimTime& t : open.least_posted) {
    if (t < least) least = t;
    t = SimTime::max();
  }
  for (const auto& box : open.boxes) exchanged_ += box.size();
  // Every partition has collected the older buffer during the window that just ended.
  open_ ^= 1;
  return least;
}

void ThreadExchange::collect(PartitionId to, EventQueue& queue) {
  Outboxes& sealed = buffers_[open_ ^ 1];
  for (PartitionId from = 0; from < partitions_; ++from) {
    auto& box = sealed.boxes[from * partitions_ + to];
    for (const Event& e : box) queue.push(e);
    box.clear();
  }
}

}  // namespace fathom::sim
