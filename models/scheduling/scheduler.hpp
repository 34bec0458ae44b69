// Scheduler: decides which waiting jobs start, at each moment the cluster changes (a job arrives
// or ends). One interface, a policy per file:
//   - the queue's order (queue_order.hpp): FCFS by submit time, or SJF by runtime estimate;
//   - what may pass the queue's head: nothing (strict_order.cpp), jobs that do not delay the
//     head's reservation (easy_backfill.cpp), or jobs that delay no queued job's reservation
//     (conservative_backfill.cpp).
// A scheduler sees runtime *estimates*; the cluster runs each job for its real run time. The
// estimates are the trace's requested times or the exact run times (the scenario's choice).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string_view>

#include "sim/time.hpp"

namespace fathom::sched {

enum class QueueOrder {
  kFcfs,  // first come, first served: by submit time
  kSjf,   // shortest job first: by runtime estimate, then submit time
};

enum class Backfill {
  kNone,          // jobs start in queue order; the first that does not fit waits, and so does every job behind it
  kEasy,          // EASY (Lifka 1995; Mu'alem & Feitelson 2001): only the head holds a reservation
  kConservative,  // every queued job holds a reservation, in queue order
};

std::string_view order_name(QueueOrder order);
std::string_view backfill_name(Backfill backfill);

struct SchedulerSpec {
  QueueOrder order = QueueOrder::kFcfs;
  Backfill backfill = Backfill::kEasy;
  // Recompute the head's reservation after every job EASY backfills and throw sim::ModelError if
  // it moved later. Costs a walk over the running jobs per backfilled job; tests turn it on.
  bool check_reservations = false;
};

// A waiting job as the scheduler sees it.
struct QueuedJob {
  std::uint32_t job = 0;  // its index in the cluster's job list
  std::int32_t gpus = 0;
  sim::SimTime submit;
  sim::SimTime estimate;  // its expected run time
};

// A running job as the scheduler sees it: when its estimate says it ends. Ordered by that time.
struct RunningJob {
  sim::SimTime expected_end;
  std::uint32_t job = 0;
  std::int32_t gpus = 0;
  friend bool operator<(const RunningJob& a, const RunningJob& b) {
    return a.expected_end != b.expected_end ? a.expected_end < b.expected_end : a.job < b.job;
  }
};
using RunningJobs = std::set<RunningJob>;

// The cluster at one decision, and the one thing a scheduler may do to it.
class SchedulingContext {
 public:
  virtual ~SchedulingContext() = default;
  virtual sim::SimTime now() const = 0;
  virtual std::int64_t free_gpus() const = 0;
  // Earliest expected end first. A job past its estimate still has its (past) expected end here:
  // read it through expected_end() below, which says "any moment now".
  virtual const RunningJobs& running() const = 0;
  // Places and starts `job`; false (nothing changed) when placement cannot hold it now.
  virtual bool start(const QueuedJob& job) = 0;

  // When a running job is expected to end: its estimate's end, or, for a job already past it,
  // the next nanosecond ("any moment now", but not now: its GPUs are not free yet).
  sim::SimTime expected_end(const RunningJob& r) const {
    const sim::SimTime soon = now() + sim::SimTime::from_ns(1);
    return r.expected_end < soon ? soon : r.expected_end;
  }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void submit(const QueuedJob& job) = 0;
  // Starts what the policy allows now.
  virtual void schedule(SchedulingContext& ctx) = 0;
  virtual std::size_t queued() const = 0;
};

std::unique_ptr<Scheduler> make_scheduler(const SchedulerSpec& spec);

}  // namespace fathom::sched
