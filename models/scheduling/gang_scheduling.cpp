// Gang scheduling in time slices (Ousterhout, "Scheduling techniques for concurrent systems",
// ICDCS 1982; Feitelson and Rudolph's gang scheduling): all of a job's GPUs run at once, and the
// jobs take turns. They stand in a rotation in arrival order. Every `quantum`, while some job
// waits, the jobs that ran in the slice go to the back of the rotation and the slice is filled
// again from the front, each job that fits taking its GPUs (a job too large for what is left
// lets the next one in). Between slice boundaries nothing is stopped: arrivals and ends only
// start waiting jobs, in rotation order, on the GPUs free.
#include <algorithm>
#include <deque>

#include "models/scheduling/preemptive.hpp"

namespace fathom::sched {

namespace {

class GangScheduling final : public PreemptiveScheduler {
 public:
  explicit GangScheduling(sim::SimTime quantum) : quantum_(quantum) {}

  void submit(const QueuedJob& job) override {
    PreemptiveScheduler::submit(job);
    rotation_.push_back(job.job);
  }
  void ended(std::uint32_t job) override {
    PreemptiveScheduler::ended(job);
    rotation_.erase(std::find(rotation_.begin(), rotation_.end(), job));
  }

 private:
  std::vector<const Entry*> choose(SchedulingContext& ctx) override {
    const bool boundary = slice_end_ != sim::SimTime::max() && ctx.now() >= slice_end_;
    if (boundary) {
      // The slice's jobs to the back, in their order.
      std::deque<std::uint32_t> ran, rest;
      for (const std::uint32_t j : rotation_) (active_.at(j).running ? ran : rest).push_back(j);
      rest.insert(rest.end(), ran.begin(), ran.end());
      rotation_ = std::move(rest);
      slice_end_ = sim::SimTime::max();
    }
    std::vector<const Entry*> order, chosen;
    if (!boundary) {
      // Mid-slice the running jobs stay.
      for (const std::uint32_t j : rotation_) {
        if (active_.at(j).running) order.push_back(&active_.at(j));
      }
    }
    for (const std::uint32_t j : rotation_) {
      if (boundary || !active_.at(j).running) order.push_back(&active_.at(j));
    }
    take_in_order(order, ctx.total_gpus(), chosen);
    // A slice ends a quantum after it starts, if someone is still waiting then.
    if (chosen.size() < active_.size() && slice_end_ == sim::SimTime::max()) {
      slice_end_ = ctx.now() + quantum_;
      ctx.wake_at(slice_end_);
    }
    return chosen;
  }

  sim::SimTime quantum_;
  std::deque<std::uint32_t> rotation_;
  sim::SimTime slice_end_ = sim::SimTime::max();  // the current slice's end, while jobs wait
};

}  // namespace

std::unique_ptr<Scheduler> make_gang_scheduling(sim::SimTime quantum) {
  return std::make_unique<GangScheduling>(quantum);
}

}  // namespace fathom::sched
