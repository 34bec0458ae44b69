// Synthetic traces: each distribution's sample mean against its closed-form mean (within four
// standard errors from the closed-form variance), a generated M/M/c queue against Erlang C, and
// resampling a trace.
#include "models/workloads/jobs/job_generator.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <vector>

#include "models/workloads/jobs/job_cluster.hpp"
#include "tests/support/queueing.hpp"

using namespace fathom;
using Kind = jobs::Distribution::Kind;

TEST_CASE("each distribution's sample mean is within four standard errors of its mean") {
  struct Case {
    jobs::Distribution d;
    double variance;
  };
  const double lu_a = 60, lu_b = 86400, L = std::log(lu_b / lu_a);
  const double lu_mean = (lu_b - lu_a) / L;
  const double lu_var = (lu_b * lu_b - lu_a * lu_a) / (2 * L) - lu_mean * lu_mean;
  const Case cases[] = {
      {{Kind::kExponential, 90, 0, {}, {}}, 90 * 90},
      {{Kind::kUniform, 10, 50, {}, {}}, 40.0 * 40 / 12},
      {{Kind::kLogUniform, lu_a, lu_b, {}, {}}, lu_var},
      {{Kind::kLogNormal, 100, 0.5, {}, {}}, (std::exp(0.25) - 1) * std::exp(2 * std::log(100) + 0.25)},
      {{Kind::kGamma, 60, 3, {}, {}}, (3 * 60.0) * (3 * 60.0)},        // bursty: cv 3
      {{Kind::kGamma, 60, 0.5, {}, {}}, (0.5 * 60.0) * (0.5 * 60.0)},  // smoother than Poisson
      {{Kind::kEmpirical, 0, 0, {1, 2, 8}, {7, 2, 1}}, 0.7 * 1 + 0.2 * 4 + 0.1 * 64 - 2.1 * 2.1},
  };
  sim::RandomStream rng(11, 0);
  for (const Case& c : cases) {
    CAPTURE(static_cast<int>(c.d.kind));
    CAPTURE(c.d.b);
    REQUIRE(c.d.invalid().empty());
    constexpr int kDraws = 200'000;
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double x = c.d.draw(rng);
      REQUIRE(x > 0);
      sum += x;
    }
    const double se = std::sqrt(c.variance / kDraws);
    CHECK(std::abs(sum / kDraws - c.d.mean()) < 4 * se);
  }
  CHECK(jobs::Distribution{Kind::kFixed, 5, 0, {}, {}}.draw(rng) == 5);
  CHECK_FALSE(jobs::Distribution{Kind::kUniform, 5, 2, {}, {}}.invalid().empty());
  CHECK_FALSE(jobs::Distribution{Kind::kEmpirical, 0, 0, {1, 2}, {1}}.invalid().empty());
  CHECK_FALSE(jobs::Distribution{Kind::kGamma, 5, 0, {}, {}}.invalid().empty());
}

// A generated trace of one-GPU jobs with exponential gaps and run times is an M/M/c queue: the
// mean wait after a warm-up matches Erlang C within the 95% interval of 20 batch means.
TEST_CASE("a generated Poisson trace on c GPUs waits as Erlang C says") {
  constexpr int c = 8;
  const double mean_run = 3600, rho = 0.8, mean_gap = mean_run / (rho * c);
  jobs::JobGeneratorSpec spec;
  spec.jobs = 420'000;
  spec.interarrival_s = {Kind::kExponential, mean_gap, 0, {}, {}};
  spec.gpus = {Kind::kFixed, 1, 0, {}, {}};
  spec.run_s = {Kind::kExponential, mean_run, 0, {}, {}};
  const std::vector<jobs::TraceJob> trace = jobs::generate_jobs(spec, 5);
  REQUIRE(trace.size() == 420'000);
  std::vector<sim::SimTime> exact;
  for (const auto& j : trace) exact.push_back(j.run);
  jobs::JobClusterSpec cluster;
  cluster.gpus_per_node.assign(c, 1);
  cluster.leaf_of_node.assign(c, 0);
  cluster.scheduler.backfill = sched::Backfill::kNone;
  const jobs::JobClusterRun run = jobs::run_job_cluster(trace, exact, cluster, 1);
  std::vector<double> waits;
  for (std::size_t i = 0; i < trace.size(); ++i) waits.push_back((run.jobs[i].start - trace[i].submit).to_seconds());
  const auto [mean, half] = test::batch_means_95(waits, 20'000, 20'000);
  const double erlang = test::erlang_c_wait(c, 1 / mean_gap, 1 / mean_run);
  MESSAGE("generated M/M/8 at 0.8: simulated " << mean << " s +- " << half << ", Erlang C " << erlang << " s");
  CHECK(std::abs(mean - erlang) <= half);
}

TEST_CASE("resampling draws jobs and gaps from the source, the same for the same seed") {
  std::vector<jobs::TraceJob> source;
  const std::int64_t gaps[] = {0, 10, 30, 60};
  std::int64_t t = 0;
  for (int i = 0; i < 4; ++i) {
    jobs::TraceJob j;
    j.id = 100 + i;
    t += gaps[i];
    j.submit = sim::SimTime::from_seconds(static_cast<double>(t));
    j.gpus = 1 << i;
    j.run = sim::SimTime::from_seconds(100.0 * (i + 1));
    j.line = 10 + i;
    j.logged_wait = sim::SimTime::from_seconds(5);
    source.push_back(j);
  }
  const auto a = jobs::resample_jobs(source, 5'000, 9);
  const auto b = jobs::resample_jobs(source, 5'000, 9);
  REQUIRE(a.size() == 5'000);
  std::set<std::int64_t> seen_gaps;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].id == static_cast<std::int64_t>(i + 1));
    CHECK(a[i].submit == b[i].submit);
    CHECK(a[i].gpus == b[i].gpus);
    CHECK(a[i].run.ns() == 100'000'000'000LL * (1 + std::countr_zero(static_cast<unsigned>(a[i].gpus))));
    CHECK_FALSE(a[i].logged_wait);
    const std::int64_t gap = (a[i].submit - (i ? a[i - 1].submit : sim::SimTime::zero())).ns() / 1'000'000'000;
    seen_gaps.insert(gap);
  }
  CHECK(seen_gaps == std::set<std::int64_t>{10, 30, 60});
  CHECK_THROWS_AS(jobs::resample_jobs(std::span(source).first(1), 5, 1), std::invalid_argument);
}
