// The schedulers on traces small enough to schedule by hand, an M/M/c queue against Erlang C, and
// EASY's promise to the queue's head checked on every backfill of random traces.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/workloads/jobs/job_cluster.hpp"
#include "sim/random.hpp"
#include "tests/support/queueing.hpp"

using namespace fathom;
using sim::SimTime;
using namespace sim::literals;

namespace {

jobs::TraceJob job(std::int64_t id, SimTime submit, std::int32_t gpus, SimTime run) {
  jobs::TraceJob j;
  j.id = id;
  j.submit = submit;
  j.gpus = gpus;
  j.run = run;
  return j;
}

jobs::JobClusterSpec cluster(std::int32_t nodes, std::int32_t gpus_per_node, sched::QueueOrder order,
                             sched::Backfill backfill) {
  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(static_cast<std::size_t>(nodes), gpus_per_node);
  spec.leaf_of_node.assign(static_cast<std::size_t>(nodes), 0);
  spec.scheduler.order = order;
  spec.scheduler.backfill = backfill;
  spec.scheduler.check_reservations = true;
  return spec;
}

std::vector<SimTime> starts(const std::vector<jobs::TraceJob>& trace, const std::vector<SimTime>& estimates,
                            const jobs::JobClusterSpec& spec) {
  const jobs::JobClusterRun run = jobs::run_job_cluster(trace, estimates, spec, 1);
  std::vector<SimTime> s;
  for (const jobs::JobRun& r : run.jobs) s.push_back(r.start);
  return s;
}

std::vector<SimTime> runs_of(const std::vector<jobs::TraceJob>& trace) {
  std::vector<SimTime> e;
  for (const auto& j : trace) e.push_back(j.run);
  return e;
}

}  // namespace

// Four GPUs. A holds three from 0 to 10. B wants all four; C and D want one each.
//   FCFS:  B waits for A (10..15); C and D wait behind B (15..).
//   EASY:  B's reservation is at 10 with no GPU to spare; C (ends at 7) backfills into the free
//          GPU; D (ends at 23) would hold it past 10 and waits.
//   SJF:   B and C both estimate 5 s; B, submitted first, heads the queue and blocks it as in FCFS.
TEST_CASE("FCFS, EASY and conservative backfilling on a trace scheduled by hand") {
  const std::vector<jobs::TraceJob> trace{job(1, 0_s, 3, 10_s), job(2, 1_s, 4, 5_s), job(3, 2_s, 1, 5_s),
                                          job(4, 3_s, 1, 20_s)};
  const auto exact = runs_of(trace);
  using sched::Backfill;
  using sched::QueueOrder;
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kFcfs, Backfill::kNone)) ==
        std::vector<SimTime>{0_s, 10_s, 15_s, 15_s});
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kFcfs, Backfill::kEasy)) ==
        std::vector<SimTime>{0_s, 10_s, 2_s, 15_s});
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kFcfs, Backfill::kConservative)) ==
        std::vector<SimTime>{0_s, 10_s, 2_s, 15_s});
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kSjf, Backfill::kNone)) ==
        std::vector<SimTime>{0_s, 10_s, 15_s, 15_s});
  // Spread over four one-GPU nodes the answer is the same: placement may split a job.
  CHECK(starts(trace, exact, cluster(4, 1, QueueOrder::kFcfs, Backfill::kEasy)) ==
        std::vector<SimTime>{0_s, 10_s, 2_s, 15_s});
}

// EASY protects only the head; conservative backfilling protects every queued job.
TEST_CASE("conservative backfilling protects every queued job, EASY only the head") {
  // Four GPUs. A: 2 GPUs 0..10. B: 4 GPUs, 10 s. C: 3 GPUs, 10 s. D: 1 GPU, 25 s.
  // B is reserved at 10 with no GPU to spare, so D (which would hold a GPU past 10) waits under
  // both policies; B runs 10..20, then C and D start together at 20.
  const std::vector<jobs::TraceJob> trace{job(1, 0_s, 2, 10_s), job(2, 1_s, 4, 10_s), job(3, 2_s, 3, 10_s),
                                          job(4, 3_s, 1, 25_s)};
  const auto exact = runs_of(trace);
  using sched::Backfill;
  using sched::QueueOrder;
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kFcfs, Backfill::kEasy)) ==
        std::vector<SimTime>{0_s, 10_s, 20_s, 20_s});
  CHECK(starts(trace, exact, cluster(1, 4, QueueOrder::kFcfs, Backfill::kConservative)) ==
        std::vector<SimTime>{0_s, 10_s, 20_s, 20_s});
  // Five GPUs, A holding 3, C wanting all 5: B is reserved at 10 with one GPU to spare.
  const std::vector<jobs::TraceJob> second{job(1, 0_s, 3, 10_s), job(2, 1_s, 4, 10_s), job(3, 2_s, 5, 10_s),
                                           job(4, 3_s, 1, 25_s)};
  const auto exact2 = runs_of(second);
  // EASY: B (4) reserved at 10 with 1 spare; D (1 GPU) takes it at 3 and holds it until 28; C
  // (5 GPUs) is not protected and waits for D: 28.
  CHECK(starts(second, exact2, cluster(1, 5, QueueOrder::kFcfs, Backfill::kEasy)) ==
        std::vector<SimTime>{0_s, 10_s, 28_s, 3_s});
  // Conservative: B at 10..20, C reserved at 20..30; D (25 s) fits nowhere before 30 without
  // delaying C: it starts at 30.
  CHECK(starts(second, exact2, cluster(1, 5, QueueOrder::kFcfs, Backfill::kConservative)) ==
        std::vector<SimTime>{0_s, 10_s, 20_s, 30_s});
}

TEST_CASE("SJF orders the queue by estimate, and EASY backfills under either order") {
  // One GPU: A runs 0..10; B (8 s), C (2 s), D (5 s) wait. SJF runs C, D, B; FCFS B, C, D.
  const std::vector<jobs::TraceJob> trace{job(1, 0_s, 1, 10_s), job(2, 1_s, 1, 8_s), job(3, 2_s, 1, 2_s),
                                          job(4, 3_s, 1, 5_s)};
  const auto exact = runs_of(trace);
  using sched::Backfill;
  using sched::QueueOrder;
  CHECK(starts(trace, exact, cluster(1, 1, QueueOrder::kSjf, Backfill::kNone)) ==
        std::vector<SimTime>{0_s, 17_s, 10_s, 12_s});
  CHECK(starts(trace, exact, cluster(1, 1, QueueOrder::kFcfs, Backfill::kNone)) ==
        std::vector<SimTime>{0_s, 10_s, 18_s, 20_s});
  // The scheduler reads estimates, not run times: tell it B is the shortest.
  std::vector<SimTime> told = exact;
  told[1] = 1_s;
  CHECK(starts(trace, told, cluster(1, 1, QueueOrder::kSjf, Backfill::kNone)) ==
        std::vector<SimTime>{0_s, 10_s, 18_s, 20_s});
}

TEST_CASE("a job past its estimate holds its GPUs until it really ends, and is counted") {
  // Two GPUs. A asks for 5 s and runs 10. B (both GPUs) must wait for A's real end.
  const std::vector<jobs::TraceJob> trace{job(1, 0_s, 1, 10_s), job(2, 1_s, 2, 1_s), job(3, 6_s, 1, 1_s)};
  const std::vector<SimTime> told{5_s, 1_s, 1_s};
  const jobs::JobClusterRun run =
      jobs::run_job_cluster(trace, told, cluster(1, 2, sched::QueueOrder::kFcfs, sched::Backfill::kEasy), 1);
  CHECK(run.jobs[1].start == 10_s);
  // C arrives at 6, when A is past its estimate: B's reservation is "any moment now", so C
  // (1 s, on the GPU B needs) may not backfill, and starts after B.
  CHECK(run.jobs[2].start == 11_s);
  CHECK(run.overran_estimate == 1);
}

TEST_CASE("the cluster refuses jobs it cannot run, before running anything") {
  const auto spec = cluster(2, 4, sched::QueueOrder::kFcfs, sched::Backfill::kEasy);
  const std::vector<SimTime> est{1_s, 1_s};
  CHECK_THROWS_AS(jobs::run_job_cluster(std::vector{job(1, 0_s, 9, 1_s), job(2, 0_s, 1, 1_s)}, est, spec, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(jobs::run_job_cluster(std::vector{job(1, 0_s, 0, 1_s), job(2, 0_s, 1, 1_s)}, est, spec, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(jobs::run_job_cluster(std::vector{job(1, 5_s, 1, 1_s), job(2, 1_s, 1, 1_s)}, est, spec, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(jobs::run_job_cluster(std::vector{job(1, 0_s, 1, 1_s)}, est, spec, 1), std::invalid_argument);
}

// Poisson arrivals, exponential run times, one GPU per job, FCFS: the cluster is an M/M/c queue,
// whose mean wait is Erlang C's. The simulated mean comes with a 95% confidence interval from
// 20 batch means (after a warm-up), and Erlang C must lie inside it.
TEST_CASE("an M/M/c queue's mean wait matches Erlang C within its confidence interval") {
  for (const auto& [c, rho] : {std::pair{8, 0.7}, std::pair{16, 0.9}}) {
    CAPTURE(c);
    CAPTURE(rho);
    const double mu = 1.0 / 3600;  // one-hour mean run time
    const double lambda = rho * c * mu;
    constexpr int kWarmup = 20'000, kBatches = 20, kBatch = 20'000;
    sim::RandomStream rng(42, static_cast<std::uint64_t>(c));
    std::vector<jobs::TraceJob> trace;
    double t = 0;
    for (int i = 0; i < kWarmup + kBatches * kBatch; ++i) {
      t += rng.exponential(1 / lambda);
      trace.push_back(job(i + 1, SimTime::from_seconds(t), 1, SimTime::from_seconds(rng.exponential(1 / mu))));
    }
    const auto exact = runs_of(trace);
    const jobs::JobClusterRun run =
        jobs::run_job_cluster(trace, exact, cluster(c, 1, sched::QueueOrder::kFcfs, sched::Backfill::kNone), 1);
    std::vector<double> waits;
    for (std::size_t i = 0; i < trace.size(); ++i) waits.push_back((run.jobs[i].start - trace[i].submit).to_seconds());
    const auto [mean, half] = test::batch_means_95(waits, kWarmup, kBatch);
    const double expected = test::erlang_c_wait(c, lambda, mu);
    MESSAGE("M/M/" << c << " at rho " << rho << ": simulated " << mean << " s +- " << half << ", Erlang C " << expected
                   << " s");
    CHECK(std::abs(mean - expected) <= half);
    CHECK(half < 0.15 * expected);  // the interval is tight enough to mean something
  }
}

// EASY's promise, checked by the scheduler itself (check_reservations throws if a backfill moved
// the head's reservation later) on random traces whose estimates over- and under-state the runs.
TEST_CASE("EASY never delays the head's reservation, on random traces") {
  sim::RandomStream rng(7, 0);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<jobs::TraceJob> trace;
    std::vector<SimTime> est;
    double t = 0;
    for (int i = 0; i < 400; ++i) {
      t += rng.exponential(60);
      const double run = 1 + rng.exponential(600);
      trace.push_back(job(i + 1, SimTime::from_seconds(std::floor(t)),
                          1 + static_cast<std::int32_t>(rng.uniform_below(32)),
                          SimTime::from_seconds(std::floor(run))));
      est.push_back(SimTime::from_seconds(std::floor(run * (0.5 + 2 * rng.uniform01()))));
    }
    for (const auto order : {sched::QueueOrder::kFcfs, sched::QueueOrder::kSjf}) {
      const jobs::JobClusterRun run =
          jobs::run_job_cluster(trace, est, cluster(4, 8, order, sched::Backfill::kEasy), 1);
      for (std::size_t i = 0; i < trace.size(); ++i) REQUIRE(run.jobs[i].start >= trace[i].submit);
    }
  }
}

TEST_CASE("a run is a function of its input: the same trace gives the same schedule and fingerprint") {
  sim::RandomStream rng(3, 0);
  std::vector<jobs::TraceJob> trace;
  double t = 0;
  for (int i = 0; i < 2000; ++i) {
    t += rng.exponential(30);
    trace.push_back(job(i + 1, SimTime::from_seconds(std::floor(t)),
                        1 + static_cast<std::int32_t>(rng.uniform_below(16)),
                        SimTime::from_seconds(std::floor(1 + rng.exponential(900)))));
  }
  const auto exact = runs_of(trace);
  for (const auto backfill : {sched::Backfill::kNone, sched::Backfill::kEasy, sched::Backfill::kConservative}) {
    const auto spec = cluster(4, 8, sched::QueueOrder::kFcfs, backfill);
    const jobs::JobClusterRun a = jobs::run_job_cluster(trace, exact, spec, 1);
    const jobs::JobClusterRun b = jobs::run_job_cluster(trace, exact, spec, 1);
    CHECK(a.fingerprint == b.fingerprint);
    bool same = true;
    for (std::size_t i = 0; i < trace.size(); ++i) same = same && a.jobs[i].start == b.jobs[i].start;
    CHECK(same);
    // GPUs are conserved: the timeline never shows more busy than the cluster has, and ends idle.
    for (const auto& c : a.timeline) REQUIRE(c.busy_gpus <= a.total_gpus);
    CHECK(a.timeline.back().busy_gpus == 0);
    CHECK(a.timeline.back().queued == 0);
  }
}

// Predictions from the user's history (Tsafrir et al., TPDS 2007): the mean of the user's last
// two finished run times, capped by the request; the request while the user has none finished.
TEST_CASE("estimates predicted from each user's last two finished jobs") {
  auto with_user = [](jobs::TraceJob j, std::int32_t user) {
    j.user = user;
    return j;
  };
  const std::vector<jobs::TraceJob> trace{
      with_user(job(1, 0_s, 1, 100_s), 7),    // finishes at 100
      with_user(job(2, 0_s, 1, 300_s), 7),    // finishes at 300
      with_user(job(3, 400_s, 1, 50_s), 7),   // told (100 + 300) / 2 = 200; finishes at 450
      with_user(job(4, 400_s, 1, 60_s), 8),   // no history: its request
      with_user(job(5, 500_s, 1, 40_s), 7),   // told (300 + 50) / 2 = 175
      with_user(job(6, 500_s, 1, 40_s), -1),  // no user: its request
      with_user(job(7, 600_s, 1, 10_s), 7),   // told min((50 + 40) / 2, 30) = 30: capped by its request
  };
  const std::vector<SimTime> requests{1000_s, 1000_s, 1000_s, 900_s, 1000_s, 800_s, 30_s};
  auto spec = cluster(1, 4, sched::QueueOrder::kFcfs, sched::Backfill::kEasy);
  spec.predict_from_history = true;
  const jobs::JobClusterRun run = jobs::run_job_cluster(trace, requests, spec, 1);
  CHECK(run.estimates == std::vector<SimTime>{1000_s, 1000_s, 200_s, 900_s, 175_s, 800_s, 30_s});
  for (std::size_t i = 0; i < trace.size(); ++i) CHECK(run.jobs[i].start == trace[i].submit);  // 4 GPUs: no wait
  spec.predict_from_history = false;
  CHECK(jobs::run_job_cluster(trace, requests, spec, 1).estimates == requests);
}

// A job that outlives its prediction is then expected to run to its request: a head waiting for
// it is reserved at that time, so a long job may backfill in front of it.
TEST_CASE("a job past its prediction is expected to run to its request") {
  auto with_user = [](jobs::TraceJob j, std::int32_t user) {
    j.user = user;
    return j;
  };
  // Two GPUs. User 1's first two jobs (10 s each) make the prediction of the third 10 s; it runs
  // 100 s, against a request of 1,000 s. The head (2 GPUs) waits for it. At 40 s a 1-GPU job of
  // 50 s arrives: with the prediction corrected (expected end 1,020 s) it backfills at once (it
  // ends by the shadow time); uncorrected ("any moment now") it would wait.
  const std::vector<jobs::TraceJob> trace{with_user(job(1, 0_s, 1, 10_s), 1), with_user(job(2, 0_s, 1, 10_s), 1),
                                          with_user(job(3, 20_s, 1, 100_s), 1), with_user(job(4, 25_s, 2, 10_s), 2),
                                          with_user(job(5, 40_s, 1, 50_s), 3)};
  const std::vector<SimTime> requests{1000_s, 1000_s, 1000_s, 10_s, 50_s};
  auto spec = cluster(1, 2, sched::QueueOrder::kFcfs, sched::Backfill::kEasy);
  spec.predict_from_history = true;
  const jobs::JobClusterRun run = jobs::run_job_cluster(trace, requests, spec, 1);
  CHECK(run.estimates[2] == 10_s);
  CHECK(run.jobs[4].start == 40_s);
  CHECK(run.jobs[3].start == 120_s);
  CHECK(run.overran_estimate == 1);
}
