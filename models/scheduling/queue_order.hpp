// The waiting queue, kept in a policy's order. FCFS orders by submit time; SJF by runtime
// estimate. Both break ties by submit time, then by job index (the trace's order), so the queue's
// order never depends on the order of insertion.
#pragma once

#include <set>

#include "models/scheduling/scheduler.hpp"

namespace fathom::sched {

struct QueueKey {
  sim::SimTime first;  // submit (FCFS) or estimate (SJF)
  QueuedJob job;
  friend bool operator<(const QueueKey& a, const QueueKey& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.job.submit != b.job.submit) return a.job.submit < b.job.submit;
    return a.job.job < b.job.job;
  }
};

class JobQueue {
 public:
  explicit JobQueue(QueueOrder order) : order_(order) {}
  void push(const QueuedJob& job) { keys_.insert({order_ == QueueOrder::kSjf ? job.estimate : job.submit, job}); }
  using Iterator = std::set<QueueKey>::iterator;
  Iterator begin() const { return keys_.begin(); }
  Iterator end() const { return keys_.end(); }
  Iterator erase(Iterator it) { return keys_.erase(it); }
  bool empty() const { return keys_.empty(); }
  std::size_t size() const { return keys_.size(); }

 private:
  QueueOrder order_;
  std::set<QueueKey> keys_;
};

// A scheduler that keeps one such queue; the backfilling policies derive from it.
class QueueScheduler : public Scheduler {
 public:
  explicit QueueScheduler(QueueOrder order) : queue_(order) {}
  void submit(const QueuedJob& job) override { queue_.push(job); }
  std::size_t queued() const override { return queue_.size(); }

 protected:
  // Starts jobs from the head while they fit; stops at the first that does not.
  void start_in_order(SchedulingContext& ctx);
  JobQueue queue_;
};

// A scheduler per backfilling policy, each in its own file.
std::unique_ptr<Scheduler> make_strict_order(QueueOrder order);
std::unique_ptr<Scheduler> make_easy_backfill(QueueOrder order, bool check_reservations);
std::unique_ptr<Scheduler> make_conservative_backfill(QueueOrder order);

}  // namespace fathom::sched
