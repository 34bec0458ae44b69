// Scheduler: decides which waiting jobs start, at each moment the cluster changes (a job arrives
// or ends, or a time the scheduler asked to be woken at). One interface, a policy per file:
//   - the queue's order (queue_order.hpp): FCFS by submit time, or SJF by runtime estimate;
//   - what may pass the queue's head: nothing (strict_order.cpp), jobs that do not delay the
//     head's reservation (easy_backfill.cpp), or jobs that delay no queued job's reservation
//     (conservative_backfill.cpp);
//   - or a preemptive policy (preemptive.hpp), which ranks every job, running or waiting, and
//     runs the best-ranked that fit, stopping the others: Tiresias's discretised least attained
//     service (least_attained_service.cpp), gang scheduling in time slices (gang_scheduling.cpp),
//     and teams' guaranteed quotas with idle GPUs lent out and reclaimed (team_quotas.cpp).
// A scheduler sees runtime *estimates*; the cluster runs each job for its real run time. The
// estimates are the trace's requested times or the exact run times (the scenario's choice).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

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

enum class Policy {
  kQueue,  // a queue order and a backfilling policy (above); nothing is ever stopped
  kLas,    // Tiresias's discretised least attained service (Gu et al., NSDI 2019), preemptive
  kGang,   // gang scheduling: all of a job's GPUs at once, the jobs taking turns in time slices
  kQuota,  // teams' guaranteed quotas (virtual clusters); idle GPUs lent out, reclaimed by preemption
};

std::string_view order_name(QueueOrder order);
std::string_view backfill_name(Backfill backfill);
std::string_view policy_name(Policy policy);

// A team's virtual cluster (Policy::kQuota).
struct TeamQuota {
  std::int32_t team = 0;
  std::int64_t gpus = 0;  // guaranteed: its jobs within this many GPUs are never preempted
  int priority = 0;       // higher first when GPUs beyond the quotas are lent out
};

struct SchedulerSpec {
  QueueOrder order = QueueOrder::kFcfs;
  Backfill backfill = Backfill::kEasy;
  // Recompute the head's reservation after every job EASY backfills and throw sim::ModelError if
  // it moved later. Costs a walk over the running jobs per backfilled job; tests turn it on.
  bool check_reservations = false;
  // A preemptive policy instead of the queue order and backfilling above.
  Policy policy = Policy::kQueue;
  // kLas: a job's queue is the number of these thresholds (GPU-seconds of service, ascending)
  // it has attained; queue 0 first, first come first served inside a queue.
  std::vector<double> las_thresholds_gpu_s{3600};
  // kGang: the length of a time slice.
  sim::SimTime quantum = sim::SimTime::from_seconds(600);
  // kQuota: the teams' quotas; a team not listed has none (its jobs only borrow).
  std::vector<TeamQuota> quotas;
};

// A waiting job as the scheduler sees it.
struct QueuedJob {
  std::uint32_t job = 0;  // its index in the cluster's job list
  std::int32_t gpus = 0;
  sim::SimTime submit;
  sim::SimTime estimate;   // its expected run time (what is left of it, for a preempted job)
  std::int32_t team = -1;  // its team (the trace's group), for quotas
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

  // For the preemptive policies:
  virtual std::int64_t total_gpus() const = 0;
  // Stops a running job and frees its GPUs; its work done is kept, and it waits to start again
  // (the scheduler keeps it). Throws sim::ModelError for a job that is not running.
  virtual void preempt(std::uint32_t job) = 0;
  // How long `job` has run so far, in all its runs, as of now.
  virtual sim::SimTime executed(std::uint32_t job) const = 0;
  // Asks for a decision at `at` (> now), even if nothing else changes by then.
  virtual void wake_at(sim::SimTime at) = 0;

  // GPUs held by something that is not a job and announces no end (a shared cluster's services):
  // they count toward no reservation.
  virtual std::int64_t held_elsewhere() const { return 0; }

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
  // Starts what the policy allows now (and, for a preemptive policy, stops what it does not).
  virtual void schedule(SchedulingContext& ctx) = 0;
  // A running job has ended (the queue-based policies forget a job once it starts).
  virtual void ended(std::uint32_t /*job*/) {}
  virtual std::size_t queued() const = 0;
};

std::unique_ptr<Scheduler> make_scheduler(const SchedulerSpec& spec);

}  // namespace fathom::sched
