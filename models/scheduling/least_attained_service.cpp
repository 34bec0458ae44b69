// Tiresias's discretised two-dimensional least attained service (Gu et al., "Tiresias: A GPU
// Cluster Manager for Distributed Deep Learning", NSDI 2019), without its starvation knob: a
// job's attained service is its GPUs x the time it has run; thresholds T1 < T2 < ... split the
// jobs into queues (queue k: service in [T_k, T_k+1)); lower queues run first, first come first
// served inside a queue, and a job that does not fit lets the next one run. A job that crosses a
// threshold while it runs drops a queue, so the scheduler asks to be woken when the first running
// job will; a new job (service 0) enters queue 0 and so preempts jobs that have had more.
#include <algorithm>
#include <cmath>
#include <utility>

#include "models/scheduling/preemptive.hpp"

namespace fathom::sched {

namespace {

class LeastAttainedService final : public PreemptiveScheduler {
 public:
  explicit LeastAttainedService(std::vector<double> thresholds) : thresholds_(std::move(thresholds)) {}

 private:
  double service(SchedulingContext& ctx, const Entry& e) const {
    return ctx.executed(e.job.job).to_seconds() * e.job.gpus;
  }
  std::size_t queue_of(double service_gpu_s) const {
    return static_cast<std::size_t>(std::upper_bound(thresholds_.begin(), thresholds_.end(), service_gpu_s) -
                                    thresholds_.begin());
  }

  std::vector<const Entry*> choose(SchedulingContext& ctx) override {
    struct Ranked {
      std::size_t queue;
      const Entry* e;
    };
    std::vector<Ranked> ranked;
    ranked.reserve(active_.size());
    for (const auto& [job, e] : active_) ranked.push_back({queue_of(service(ctx, e)), &e});
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      if (a.queue != b.queue) return a.queue < b.queue;
      if (a.e->job.submit != b.e->job.submit) return a.e->job.submit < b.e->job.submit;
      return a.e->job.job < b.e->job.job;
    });
    std::vector<const Entry*> order, chosen;
    for (const Ranked& r : ranked) order.push_back(r.e);
    take_in_order(order, ctx.total_gpus(), chosen);
    // Wake when the first chosen job crosses its next threshold: it may then have to make way for
    // a job that waits (with none waiting, the next arrival decides again anyway).
    if (chosen.size() == active_.size()) return chosen;
    sim::SimTime wake = sim::SimTime::max();
    for (const Entry* e : chosen) {
      const double s = service(ctx, *e);
      const std::size_t q = queue_of(s);
      if (q >= thresholds_.size()) continue;
      const double ns = std::ceil((thresholds_[q] - s) / e->job.gpus * 1e9);
      wake = std::min(wake, ctx.now() + sim::SimTime::from_ns(std::max<std::int64_t>(1, std::llround(ns))));
    }
    if (wake != sim::SimTime::max()) ctx.wake_at(wake);
    return chosen;
  }

  std::vector<double> thresholds_;
};

}  // namespace

std::unique_ptr<Scheduler> make_least_attained_service(std::vector<double> thresholds_gpu_s) {
  return std::make_unique<LeastAttainedService>(std::move(thresholds_gpu_s));
}

}  // namespace fathom::sched
