// EASY backfilling (Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; analysed by Mu'alem and
// Feitelson, IEEE TPDS 2001). Jobs start in queue order while they fit. When the head does not,
// it gets a reservation: the shadow time, the earliest moment the running jobs' estimates free
// enough GPUs for it, and the extra GPUs, those free at the shadow time beyond what it needs.
// A later job may then start now (backfill) if it fits now and either its estimate ends it by
// the shadow time or it uses only extra GPUs. Either way the head's reservation cannot move
// later, which check_reservations verifies after every backfilled job.
#include <string>

#include "models/scheduling/queue_order.hpp"
#include "sim/errors.hpp"

namespace fathom::sched {

namespace {

struct Reservation {
  sim::SimTime shadow;
  std::int64_t extra = 0;
};

// The head's reservation: walk the running jobs by expected end until enough GPUs are free.
// The head never asks for more than the cluster has (the cluster drops or refuses such jobs),
// so the walk ends, unless GPUs are held by what announces no end (a shared cluster's
// services): then the head has no reservation (the end of the clock), and any job that fits
// may start before it, as under conservative backfilling when no slot is found.
Reservation reserve(const SchedulingContext& ctx, std::int64_t need) {
  std::int64_t free = ctx.free_gpus();
  sim::SimTime at = ctx.now();
  for (auto it = ctx.running().begin(); free < need && it != ctx.running().end(); ++it) {
    at = ctx.expected_end(*it);
    free += it->gpus;
  }
  if (free < need && free + ctx.held_elsewhere() >= need) return {sim::SimTime::max(), 0};
  if (free < need) {
    throw sim::ModelError("EASY: the queue's head asks for " + std::to_string(need) +
                          " GPUs, more than the cluster has");
  }
  return {at, free - need};
}

class EasyBackfill final : public QueueScheduler {
 public:
  EasyBackfill(QueueOrder order, bool check) : QueueScheduler(order), check_(check) {}

  void schedule(SchedulingContext& ctx) override {
    start_in_order(ctx);
    if (queue_.empty() || ctx.free_gpus() == 0) return;
    const QueuedJob head = queue_.begin()->job;
    Reservation r = reserve(ctx, head.gpus);
    const sim::SimTime now = ctx.now();
    for (auto it = std::next(queue_.begin()); it != queue_.end() && ctx.free_gpus() > 0;) {
      const QueuedJob& job = it->job;
      const bool ends_first = job.estimate <= r.shadow - now;
      if (job.gpus > ctx.free_gpus() || !(ends_first || job.gpus <= r.extra) || !ctx.start(job)) {
        ++it;
        continue;
      }
      if (!ends_first) r.extra -= job.gpus;
      if (check_) check(ctx, head, r.shadow, job);
      it = queue_.erase(it);
    }
  }

 private:
  static void check(const SchedulingContext& ctx, const QueuedJob& head, sim::SimTime shadow, const QueuedJob& job) {
    const sim::SimTime after = reserve(ctx, head.gpus).shadow;
    if (after > shadow) {
      throw sim::ModelError("EASY: backfilling job index " + std::to_string(job.job) + " at " +
                            sim::format_time(ctx.now()) + " moved the head's (job index " + std::to_string(head.job) +
                            ") reservation from " + sim::format_time(shadow) + " to " + sim::format_time(after));
    }
  }

  bool check_;
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_backfill(QueueOrder order, bool check_reservations) {
  return std::make_unique<EasyBackfill>(order, check_reservations);
}

}  // namespace fathom::sched
