// Conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 2001): every queued job holds a
// reservation, given in queue order at the earliest time the GPUs the running jobs and the
// earlier reservations leave free hold it for its whole estimate. A job starts now when its
// reservation is now; so no job starts if that would delay a reservation of any job before it.
//
// The reservations are recomputed at every decision from the running jobs' expected ends, in
// queue order: a job that ends before its estimate lets the later reservations move earlier
// (the "compression" of the paper), never later. The profile of free GPUs is a list of steps;
// finding a job's slot is one pass over it, so a decision costs O(queue x steps).
#include <algorithm>
#include <vector>

#include "models/scheduling/queue_order.hpp"

namespace fathom::sched {

namespace {

// Free GPUs from `at` until the next step's time.
struct Step {
  sim::SimTime at;
  std::int64_t free = 0;
};

class Profile {
 public:
  // Free GPUs now, then more at each running job's expected end.
  void reset(const SchedulingContext& ctx) {
    steps_.clear();
    std::int64_t free = ctx.free_gpus();
    steps_.push_back({ctx.now(), free});
    for (const RunningJob& r : ctx.running()) {
      free += r.gpus;
      const sim::SimTime at = ctx.expected_end(r);
      if (steps_.back().at == at) {
        steps_.back().free = free;
      } else {
        steps_.push_back({at, free});
      }
    }
  }

  // The index of the earliest step from which `gpus` are free for `length`; steps() when there
  // is none, which only a reservation to the end of the clock can cause.
  std::size_t earliest(std::int64_t gpus, sim::SimTime length) const {
    std::size_t start = 0;
    while (true) {
      while (start < steps_.size() && steps_[start].free < gpus) ++start;
      if (start == steps_.size()) return start;
      std::size_t k = start + 1;
      while (k < steps_.size() && steps_[k].at - steps_[start].at < length && steps_[k].free >= gpus) ++k;
      if (k == steps_.size() || steps_[k].at - steps_[start].at >= length) return start;
      start = k;
    }
  }

  std::size_t steps() const { return steps_.size(); }

  // Takes `gpus` from [steps_[start].at, that + length).
  void reserve(std::size_t start, std::int64_t gpus, sim::SimTime length) {
    const sim::SimTime end = sim::SimTime::saturating_add(steps_[start].at, length);
    std::size_t k = start;
    for (; k < steps_.size() && steps_[k].at < end; ++k) steps_[k].free -= gpus;
    // A step at `end` gives the GPUs back: the one before it had them before the reservation.
    if ((k == steps_.size() || steps_[k].at != end) && end != sim::SimTime::max()) {
      steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(k), {end, steps_[k - 1].free + gpus});
    }
  }

 private:
  std::vector<Step> steps_;
};

class ConservativeBackfill final : public QueueScheduler {
 public:
  using QueueScheduler::QueueScheduler;

  void schedule(SchedulingContext& ctx) override {
    start_in_order(ctx);
    if (queue_.empty() || ctx.free_gpus() == 0) return;
    profile_.reset(ctx);
    for (auto it = queue_.begin(); it != queue_.end();) {
      const QueuedJob& job = it->job;
      const std::size_t slot = profile_.earliest(job.gpus, job.estimate);
      if (slot == 0 && job.gpus <= ctx.free_gpus() && ctx.start(job)) {
        profile_.reserve(slot, job.gpus, job.estimate);
        it = queue_.erase(it);
        continue;
      }
      if (slot < profile_.steps()) profile_.reserve(slot, job.gpus, job.estimate);
      ++it;
    }
  }

 private:
  Profile profile_;
};

}  // namespace

std::unique_ptr<Scheduler> make_conservative_backfill(QueueOrder order) {
  return std::make_unique<ConservativeBackfill>(order);
}

}  // namespace fathom::sched
