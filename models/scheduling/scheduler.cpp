#include "models/scheduling/scheduler.hpp"

#include "models/scheduling/preemptive.hpp"
#include "models/scheduling/queue_order.hpp"

namespace fathom::sched {

std::string_view order_name(QueueOrder order) { return order == QueueOrder::kSjf ? "sjf" : "fcfs"; }

std::string_view backfill_name(Backfill backfill) {
  switch (backfill) {
    case Backfill::kNone:
      return "none";
    case Backfill::kEasy:
      return "easy";
    case Backfill::kConservative:
      return "conservative";
  }
  return "?";
}

std::string_view policy_name(Policy policy) {
  switch (policy) {
    case Policy::kQueue:
      return "queue";
    case Policy::kLas:
      return "las";
    case Policy::kGang:
      return "gang";
    case Policy::kQuota:
      return "quota";
  }
  return "?";
}

void QueueScheduler::start_in_order(SchedulingContext& ctx) {
  while (!queue_.empty()) {
    const QueuedJob& head = queue_.begin()->job;
    if (head.gpus > ctx.free_gpus() || !ctx.start(head)) return;
    queue_.erase(queue_.begin());
  }
}

std::unique_ptr<Scheduler> make_scheduler(const SchedulerSpec& spec) {
  switch (spec.policy) {
    case Policy::kQueue:
      break;
    case Policy::kLas:
      return make_least_attained_service(spec.las_thresholds_gpu_s);
    case Policy::kGang:
      return make_gang_scheduling(spec.quantum);
    case Policy::kQuota:
      return make_team_quotas(spec.quotas);
  }
  switch (spec.backfill) {
    case Backfill::kNone:
      return make_strict_order(spec.order);
    case Backfill::kEasy:
      return make_easy_backfill(spec.order, spec.check_reservations);
    case Backfill::kConservative:
      return make_conservative_backfill(spec.order);
  }
  return nullptr;
}

}  // namespace fathom::sched
