#include "models/scheduling/preemptive.hpp"

#include <set>

#include "sim/errors.hpp"

namespace fathom::sched {

void PreemptiveScheduler::submit(const QueuedJob& job) { active_[job.job] = {job, false}; }

void PreemptiveScheduler::ended(std::uint32_t job) {
  const auto it = active_.find(job);
  if (it == active_.end()) return;
  if (it->second.running) --running_count_;
  active_.erase(it);
}

std::int64_t PreemptiveScheduler::take_in_order(const std::vector<const Entry*>& candidates, std::int64_t budget,
                                                std::vector<const Entry*>& chosen) {
  for (const Entry* e : candidates) {
    if (e->job.gpus > budget) continue;
    chosen.push_back(e);
    budget -= e->job.gpus;
  }
  return budget;
}

void PreemptiveScheduler::schedule(SchedulingContext& ctx) {
  const std::vector<const Entry*> chosen = choose(ctx);
  std::set<std::uint32_t> keep;
  std::int64_t gpus = 0;
  for (const Entry* e : chosen) {
    keep.insert(e->job.job);
    gpus += e->job.gpus;
  }
  if (gpus > ctx.total_gpus()) {
    throw sim::ModelError("preemptive scheduler: chose " + std::to_string(gpus) + " GPUs of the cluster's " +
                          std::to_string(ctx.total_gpus()));
  }
  // Stop first, so that the chosen find their GPUs free.
  for (auto& [job, e] : active_) {
    if (!e.running || keep.count(job) > 0) continue;
    ctx.preempt(job);
    e.running = false;
    --running_count_;
  }
  for (const Entry* c : chosen) {
    Entry& e = active_.at(c->job.job);
    if (e.running) continue;
    QueuedJob left = e.job;
    const sim::SimTime done = ctx.executed(left.job);
    left.estimate = left.estimate > done ? left.estimate - done : sim::SimTime::zero();
    if (!ctx.start(left)) {
      throw sim::ModelError("preemptive scheduler: job " + std::to_string(left.job) + " of " +
                            std::to_string(left.gpus) + " GPUs could not be placed on " +
                            std::to_string(ctx.free_gpus()) + " free GPUs");
    }
    e.running = true;
    ++running_count_;
  }
}

}  // namespace fathom::sched
