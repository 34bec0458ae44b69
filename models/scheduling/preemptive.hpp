// The preemptive policies' common part. The scheduler holds every job from its submission to its
// end, running or waiting. At each decision the policy chooses, best first, the jobs that should
// run now: all of a job's GPUs or none (a gang), within the cluster's GPUs. Running jobs it did
// not choose are preempted (their work done is kept; they wait to run again), then the chosen
// waiting jobs start, in the order chosen. Each policy is one choose() in its own file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "models/scheduling/scheduler.hpp"

namespace fathom::sched {

class PreemptiveScheduler : public Scheduler {
 public:
  void submit(const QueuedJob& job) override;
  void schedule(SchedulingContext& ctx) final;
  void ended(std::uint32_t job) override;
  std::size_t queued() const override { return active_.size() - running_count_; }

 protected:
  struct Entry {
    QueuedJob job;  // as submitted
    bool running = false;
  };
  // The jobs to run now, best first, whose GPUs add up to at most ctx.total_gpus().
  virtual std::vector<const Entry*> choose(SchedulingContext& ctx) = 0;

  // Takes jobs from `candidates` in order while they fit in `budget` GPUs, skipping those that do
  // not; appends them to `chosen` and returns the GPUs left.
  static std::int64_t take_in_order(const std::vector<const Entry*>& candidates, std::int64_t budget,
                                    std::vector<const Entry*>& chosen);

  std::map<std::uint32_t, Entry> active_;  // by job index: a deterministic order to start from

 private:
  std::size_t running_count_ = 0;
};

// A scheduler per preemptive policy, each in its own file.
std::unique_ptr<Scheduler> make_least_attained_service(std::vector<double> thresholds_gpu_s);
std::unique_ptr<Scheduler> make_gang_scheduling(sim::SimTime quantum);
std::unique_ptr<Scheduler> make_team_quotas(std::vector<TeamQuota> quotas);

}  // namespace fathom::sched
