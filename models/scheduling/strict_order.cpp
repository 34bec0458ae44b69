// No backfilling: jobs start in queue order, and the first that does not fit blocks the queue.
// With FCFS order this is plain FCFS; with SJF order, plain SJF.
#include "models/scheduling/queue_order.hpp"

namespace fathom::sched {

namespace {

class StrictOrder final : public QueueScheduler {
 public:
  using QueueScheduler::QueueScheduler;
  void schedule(SchedulingContext& ctx) override { start_in_order(ctx); }
};

}  // namespace

std::unique_ptr<Scheduler> make_strict_order(QueueOrder order) { return std::make_unique<StrictOrder>(order); }

}  // namespace fathom::sched
