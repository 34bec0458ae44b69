// The preemptive policies on traces small enough to schedule by hand (least attained service,
// gang scheduling, team quotas, with and without a restart cost), and their invariants on random
// traces: every job's work (and a restart per preemption) is done exactly once, in the runs the
// runs record, and a second run gives the same run.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "models/workloads/jobs/job_cluster.hpp"
#include "sim/random.hpp"

using namespace fathom;
using sim::SimTime;
using namespace sim::literals;

namespace {

jobs::TraceJob job(std::int64_t id, SimTime submit, std::int32_t gpus, SimTime run, std::int32_t group = -1) {
  jobs::TraceJob j;
  j.id = id;
  j.submit = submit;
  j.gpus = gpus;
  j.run = run;
  j.group = group;
  return j;
}

jobs::JobClusterSpec cluster(std::int32_t gpus, sched::Policy policy) {
  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(1, gpus);
  spec.leaf_of_node.assign(1, 0);
  spec.scheduler.policy = policy;
  return spec;
}

jobs::JobClusterRun run(const std::vector<jobs::TraceJob>& trace, const jobs::JobClusterSpec& spec) {
  std::vector<SimTime> estimates;
  for (const auto& j : trace) estimates.push_back(j.run);
  return jobs::run_job_cluster(trace, estimates, spec, 1);
}

}  // namespace

TEST_CASE("Least attained service: a job that crosses its threshold makes way for a newer one") {
  // One GPU. A (100 s) from 0; B (10 s) at 20 s. Threshold 30 GPU-s: at 20 s both are in queue 0
  // and A, first come, keeps the GPU; at 30 s A reaches 30 GPU-s, drops to queue 1, and B runs
  // 30-40; A resumes at 40 with 70 s left: 110 s.
  jobs::JobClusterSpec spec = cluster(1, sched::Policy::kLas);
  spec.scheduler.las_thresholds_gpu_s = {30};
  const std::vector<jobs::TraceJob> trace{job(1, 0_s, 1, 100_s), job(2, 20_s, 1, 10_s)};
  jobs::JobClusterRun r = run(trace, spec);
  CHECK(r.jobs[1].start == 30_s);
  CHECK(r.jobs[1].end == 40_s);
  CHECK(r.jobs[0].end == 110_s);
  CHECK(r.jobs[0].preemptions == 1);
  CHECK(r.jobs[0].executed == 100_s);
  CHECK(r.preemptions == 1);
  const std::vector<jobs::JobSegment> runs = jobs::all_runs(r);
  REQUIRE(runs.size() == 3);  // A 0-30, B 30-40, A 40-110
  CHECK(runs[0].end == 30_s);
  CHECK(runs[1].job == 1);
  CHECK(runs[2].start == 40_s);
  CHECK(r.jobs[0].last_start == 40_s);

  SUBCASE("a restart costs its overhead in run time") {
    spec.restart_overhead = 5_s;
    r = run(trace, spec);
    CHECK(r.jobs[0].end == 115_s);
    CHECK(r.jobs[0].executed == 105_s);
    CHECK(r.jobs[0].interference == doctest::Approx(1.0));  // the restart counts in its run alone too
  }
  SUBCASE("a job of more service than the last threshold stays in the last queue") {
    spec.scheduler.las_thresholds_gpu_s = {30, 60};
    r = run({job(1, 0_s, 1, 100_s), job(2, 70_s, 1, 10_s)}, spec);
    CHECK(r.jobs[1].start == 70_s);  // A, at 70 GPU-s in queue 2, makes way at once
    CHECK(r.jobs[0].end == 110_s);
  }
}

TEST_CASE("Gang scheduling: two whole-cluster jobs take turns in time slices") {
  // 4 GPUs, A and B both need all 4 for 100 s, slices of 30 s: A 0-30, B 30-60, A 60-90, B
  // 90-120, A 120-150, B 150-180, A 180-190 (done: 30 + 30 + 30 + 10), then B 190-200.
  jobs::JobClusterSpec spec = cluster(4, sched::Policy::kGang);
  spec.scheduler.quantum = 30_s;
  const jobs::JobClusterRun r = run({job(1, 0_s, 4, 100_s), job(2, 0_s, 4, 100_s)}, spec);
  CHECK(r.jobs[0].end == 190_s);
  CHECK(r.jobs[1].end == 200_s);
  CHECK(r.jobs[1].start == 30_s);
  CHECK(r.jobs[0].preemptions == 3);
  CHECK(r.jobs[1].preemptions == 3);

  SUBCASE("jobs that fit side by side are never stopped") {
    const jobs::JobClusterRun side = run({job(1, 0_s, 2, 100_s), job(2, 0_s, 2, 100_s)}, spec);
    CHECK(side.preemptions == 0);
    CHECK(side.jobs[0].end == 100_s);
    CHECK(side.jobs[1].end == 100_s);
  }
}

TEST_CASE("Team quotas: a team's job within its quota takes back lent GPUs") {
  // 8 GPUs; teams 1 and 2 are each guaranteed 4. X (team 2, 8 GPUs, 100 s) borrows the idle 4 at
  // 0; Y (team 1, 4 GPUs, 50 s) arrives at 10 s within its quota: X is preempted, Y runs 10-60,
  // X runs again from 60 with 90 s left and a 5 s restart: 155 s.
  jobs::JobClusterSpec spec = cluster(8, sched::Policy::kQuota);
  spec.scheduler.quotas = {{1, 4, 0}, {2, 4, 0}};
  spec.restart_overhead = 5_s;
  const jobs::JobClusterRun r = run({job(1, 0_s, 8, 100_s, 2), job(2, 10_s, 4, 50_s, 1)}, spec);
  CHECK(r.jobs[1].start == 10_s);
  CHECK(r.jobs[1].end == 60_s);
  CHECK(r.jobs[0].end == 155_s);
  CHECK(r.jobs[0].preemptions == 1);
  CHECK(r.jobs[1].preemptions == 0);

  SUBCASE("borrowers do not preempt each other; the higher-priority team borrows first") {
    spec.scheduler.quotas = {{1, 0, 5}, {2, 0, 1}};  // no guarantees; team 1 borrows first
    const jobs::JobClusterRun b =
        run({job(1, 0_s, 8, 100_s, 2), job(2, 10_s, 8, 50_s, 2), job(3, 10_s, 8, 50_s, 1)}, spec);
    CHECK(b.preemptions == 0);
    CHECK(b.jobs[2].start == 100_s);  // team 1's job before team 2's earlier one
    CHECK(b.jobs[1].start == 150_s);
  }
}

TEST_CASE("Preemptive policies on random traces: work done once, quotas kept, runs repeatable") {
  sim::RandomStream rng(7, 0);
  for (int t = 0; t < 30; ++t) {
    std::vector<jobs::TraceJob> trace;
    SimTime at = SimTime::zero();
    for (int i = 0; i < 60; ++i) {
      at = at + SimTime::from_seconds(static_cast<double>(rng.uniform_below(41)));
      trace.push_back(job(i + 1, at, static_cast<std::int32_t>(1 + rng.uniform_below(16)),
                          SimTime::from_seconds(static_cast<double>(1 + rng.uniform_below(300))),
                          static_cast<std::int32_t>(rng.uniform_below(3))));
    }
    for (const sched::Policy policy : {sched::Policy::kLas, sched::Policy::kGang, sched::Policy::kQuota}) {
      CAPTURE(t);
      CAPTURE(sched::policy_name(policy));
      jobs::JobClusterSpec spec = cluster(16, policy);
      spec.gpus_per_node.assign(4, 4);
      spec.leaf_of_node.assign(4, 0);
      spec.scheduler.las_thresholds_gpu_s = {100, 1000};
      spec.scheduler.quantum = 45_s;
      spec.scheduler.quotas = {{0, 6, 0}, {1, 6, 1}};  // team 2 only borrows
      spec.restart_overhead = 3_s;
      const jobs::JobClusterRun r = run(trace, spec);
      std::map<std::uint32_t, SimTime> ran;
      for (const jobs::JobSegment& s : jobs::all_runs(r)) ran[s.job] = ran[s.job] + (s.end - s.start);
      std::uint64_t preemptions = 0;
      for (std::size_t i = 0; i < trace.size(); ++i) {
        const jobs::JobRun& j = r.jobs[i];
        // Its run time and a restart per preemption, to the nanosecond, in its runs.
        CHECK(j.executed == trace[i].run + SimTime::from_seconds(3.0 * j.preemptions));
        CHECK(ran[static_cast<std::uint32_t>(i)] == j.executed);
        CHECK(j.start >= trace[i].submit);
        preemptions += j.preemptions;
      }
      CHECK(preemptions == r.preemptions);
      const jobs::JobClusterRun again = run(trace, spec);
      CHECK(again.fingerprint == r.fingerprint);
    }
  }
}
