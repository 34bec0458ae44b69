// The shipped job traces through the schedulers, as the scenarios in scenarios/examples/ run them,
// with EASY's reservation check on for every decision:
//   - the Lublin-Feitelson 256-processor workload in ten 1,024-job windows on an empty cluster
//     with exact run times (the RLScheduler study's set-up): the known orderings of policies;
//   - the KTH SP2 log under EASY with its users' estimates, against the waits it logged.
// docs/jobs.md prints the figures and explains them.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/jobs/jobs_report.hpp"
#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

report::JobsReport run(const std::string& example, std::vector<std::string> overrides) {
  scenario::Scenario s =
      scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + example, overrides);
  s.jobs.scheduler.check_reservations = true;
  return report::evaluate_jobs(std::move(s));
}

// The ten windows: 1,024 jobs each, first jobs evenly spread from job 1 to job 8,977, the last
// start that leaves a whole window in the trace's 10,000 jobs. (Ten disjoint windows do not fit:
// 10 x 1,024 > 10,000; neighbours overlap by 27 jobs.)
std::vector<int> window_starts() {
  std::vector<int> starts;
  for (int k = 0; k < 10; ++k) starts.push_back(1 + (k * 8976 + 4) / 9);
  return starts;
}

}  // namespace

TEST_CASE("Lublin-256 windows: FCFS >> SJF in bounded slowdown, and backfilling lowers both") {
  double sum_sjf = 0, sum_sjf_easy = 0;
  int sjf_lowered = 0;
  for (const int first : window_starts()) {
    CAPTURE(first);
    const auto bsld = [&](const char* order, const char* backfill) {
      return run("lublin-256-window.yaml",
                 {"workload.trace.first_job=" + std::to_string(first), std::string("workload.scheduler.order=") + order,
                  std::string("workload.scheduler.backfill=") + backfill})
          .summary.mean_bounded_slowdown;
    };
    const double fcfs = bsld("fcfs", "none"), sjf = bsld("sjf", "none");
    const double fcfs_easy = bsld("fcfs", "easy"), sjf_easy = bsld("sjf", "easy");
    const double fcfs_conservative = bsld("fcfs", "conservative");
    MESSAGE("window from job " << first << ": bounded slowdown FCFS " << fcfs << ", SJF " << sjf << ", FCFS+EASY "
                               << fcfs_easy << ", SJF+EASY " << sjf_easy << ", FCFS+conservative "
                               << fcfs_conservative);
    CHECK(fcfs > 10 * sjf);               // FCFS >> SJF, in every window
    CHECK(fcfs_easy < fcfs / 5);          // backfilling lowers FCFS's, in every window
    CHECK(fcfs_conservative < fcfs / 5);  // conservative too
    sum_sjf += sjf;
    sum_sjf_easy += sjf_easy;
    if (sjf_easy < sjf) ++sjf_lowered;
  }
  // SJF's queue already puts short jobs first: backfilling lowers its slowdown over the ten
  // windows taken together, not in every one (docs/jobs.md).
  MESSAGE("SJF: mean over windows " << sum_sjf / 10 << ", with EASY " << sum_sjf_easy / 10 << "; lowered in "
                                    << sjf_lowered << " of 10");
  CHECK(sum_sjf_easy < sum_sjf);
  CHECK(sjf_lowered >= 5);
}

TEST_CASE("Lublin-256 windows: the preemptive policies against first come, first served") {
  // Least attained service runs short jobs first without knowing how long any job is (Tiresias's
  // premise); gang scheduling lets them through in time slices. Either beats FCFS without
  // backfilling in mean job completion time, in every window. docs/jobs.md has each window's
  // figures, and how both compare with EASY.
  for (const int first : window_starts()) {
    CAPTURE(first);
    const auto jct = [&](const std::string& scheduler) {
      const report::JobsReport r = run("lublin-256-window.yaml", {"workload.trace.first_job=" + std::to_string(first),
                                                                  "workload.scheduler=" + scheduler});
      CHECK(r.run.preemptions == [&] {
        std::uint64_t n = 0;
        for (const auto& j : r.run.jobs) n += j.preemptions;
        return n;
      }());
      return r.summary.mean_jct_s;
    };
    const double fcfs = jct("{order: fcfs, backfill: none}"), easy = jct("{order: fcfs, backfill: easy}");
    const double las = jct("{policy: las, thresholds: [10h]}"), las_1h = jct("{policy: las, thresholds: [1h]}");
    const double gang = jct("{policy: gang, quantum: 1h}");
    MESSAGE("window from job " << first << ": mean JCT FCFS " << fcfs << " s, FCFS+EASY " << easy << " s, LAS(10h) "
                               << las << " s, LAS(1h) " << las_1h << " s, gang(1h) " << gang << " s");
    CHECK(las < fcfs / 5);
    CHECK(las_1h < fcfs / 5);
    CHECK(gang < fcfs / 2);
  }
}

TEST_CASE("KTH SP2 under EASY with the users' estimates, against the logged waits") {
  const report::JobsReport r = run("kth-sp2-easy.yaml", {});
  const scenario::JobsWorkload& w = r.scenario.jobs;
  REQUIRE(w.jobs.size() == 28'475);  // 28,476 records less job 27313, whose size is unknown
  std::vector<double> logged;
  int whole_minutes = 0;
  for (const jobs::TraceJob& j : w.jobs) {
    REQUIRE(j.logged_wait);
    logged.push_back(j.logged_wait->to_seconds());
    if (j.logged_wait->ns() % 60'000'000'000 == 0) ++whole_minutes;
  }
  std::sort(logged.begin(), logged.end());
  double logged_mean = 0;
  for (const double x : logged) logged_mean += x / static_cast<double>(logged.size());
  const double logged_median = logged[(logged.size() - 1) / 2];
  MESSAGE("KTH SP2, EASY: simulated mean wait " << r.summary.mean_wait_s << " s, median " << r.summary.p50_wait_s
                                                << " s; logged mean " << logged_mean << " s, median " << logged_median
                                                << " s");
  // The trace's own figures (data/traces/pwa-kth-sp2/SOURCES.md: mean logged wait 15,296 s).
  CHECK(logged_mean == doctest::Approx(15'296).epsilon(0.0001));
  CHECK(logged_median == 300);
  // The log states waits in whole minutes: a job started at once is logged as 0 or 60 s.
  CHECK(whole_minutes > 0.99 * static_cast<double>(w.jobs.size()));
  // The simulated machine never stops; the logged one sat idle for hours with jobs queued
  // (outages the log does not record): the simulated waits are shorter. What they are is pinned,
  // so that a change to the scheduler shows here.
  CHECK(r.summary.mean_wait_s < logged_mean);
  CHECK(r.summary.mean_wait_s == doctest::Approx(6829.988).epsilon(1e-6));
  CHECK(r.summary.p50_wait_s == 0);
  CHECK(r.summary.utilization == doctest::Approx(0.6992).epsilon(0.001));
  CHECK(r.run.overran_estimate == 475);  // SOURCES.md: run > requested for 475 jobs
}

// The packing experiment on the Alibaba trace (scenarios/examples/alibaba-packing.yaml): tasks
// drawn from the 8,152 pods arrive on the 1,213 nodes until 130% of the GPUs are asked for. The
// figures of seed 1 are pinned; docs/jobs.md has five seeds and the comparison with the paper.
TEST_CASE("Alibaba packing: allocation at 100% and 130% arrived, for each placement policy") {
  struct Row {
    const char* policy;
    double at_100, at_130;
  };
  const Row rows[] = {{"first-fit", 0.9434, 0.9460},
                      {"best-fit", 0.9344, 0.9373},
                      {"random", 0.8658, 0.8789},
                      {"packing", 0.9440, 0.9471},
                      {"fgd", 0.9431, 0.9458}};
  for (const Row& row : rows) {
    CAPTURE(row.policy);
    const report::JobsReport r = run("alibaba-packing.yaml", {std::string("workload.placement=") + row.policy});
    REQUIRE(r.packing);
    const jobs::PackingRun& p = *r.packing;
    MESSAGE(std::string(row.policy) << ": allocated " << p.allocated_at_100 << " at 100% arrived, "
                                    << p.allocated_at_end << " at " << p.arrived_at_end << "; " << p.failed << " of "
                                    << p.arrivals << " failed");
    CHECK(p.allocated_at_100 == doctest::Approx(row.at_100).epsilon(0.0005));
    CHECK(p.allocated_at_end == doctest::Approx(row.at_130).epsilon(0.0005));
    CHECK(p.arrived_at_end >= 1.3);
    CHECK(p.arrived_at_end < 1.31);  // the last task takes it past 130% by at most 8 GPUs
    // Placing at random strands the most: every other policy allocates at least 5 points more.
    if (std::string(row.policy) != "random") CHECK(p.allocated_at_100 > 0.8658 + 0.05);
  }
}

// On 2,048 nodes under one leaf per 32 (scenarios/examples/synthetic-16k-gpus.yaml), how many
// leaves the jobs of 16 GPUs or more span: topology-aware placement keeps them within about two,
// against five for best-fit and nine and a half for first-fit (docs/jobs.md). The same jobs start
// at the same times under all three: every policy places a job exactly when its GPUs are free.
TEST_CASE("topology-aware placement spans fewer leaves than best-fit and first-fit") {
  std::vector<double> mean_leaves;
  std::vector<double> mean_wait;
  for (const char* policy : {"first-fit", "best-fit", "topology-aware"}) {
    const report::JobsReport r = run("synthetic-16k-gpus.yaml", {std::string("workload.placement=") + policy});
    double leaves = 0;
    int large = 0;
    for (std::size_t i = 0; i < r.scenario.jobs.jobs.size(); ++i) {
      if (r.scenario.jobs.jobs[i].gpus < 16) continue;
      leaves += r.run.jobs[i].leaves;
      ++large;
    }
    mean_leaves.push_back(leaves / large);
    mean_wait.push_back(r.summary.mean_wait_s);
    MESSAGE(std::string(policy) << ": jobs of 16+ GPUs span " << leaves / large << " leaves on average");
  }
  CHECK(mean_leaves[2] < 0.5 * mean_leaves[1]);
  CHECK(mean_leaves[1] < 0.6 * mean_leaves[0]);
  CHECK(mean_wait[0] == mean_wait[1]);
  CHECK(mean_wait[1] == mean_wait[2]);
}
