// The whole-run model against its closed forms: a run without failures, Daly's expected run
// time with exponential failures, Young/Daly's optimum interval, the Llama 3 table's
// interruption count at its own scale, and determinism across threads.
#include "models/reliability/whole_run.hpp"

#include <doctest/doctest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>

#include "models/reliability/failure_spec.hpp"

using namespace fathom::rel;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// One failure class (GPUs, one unit) with the run's MTBF `mtbf_s`; recovery is `restart_s`.
RunInputs one_class(double mtbf_s, double restart_s) {
  RunInputs in;
  in.failures = no_failures();
  in.failures.detection_ns = 0;
  in.failures.replace_ns = 0;
  in.failures.restart_ns = static_cast<std::int64_t>(restart_s * kSecond);
  in.failures.rate(Component::kGpu).mtbf_s = mtbf_s;
  in.failures.rate(Component::kGpu).takes_node = false;
  in.units = {1, 1, 1};
  in.gpus = 1;
  in.tokens_per_step = 1;
  in.step_ns = kSecond;
  return in;
}

// Daly (2006), exact for exponential failures when a failure during a checkpoint or a recovery
// loses it too: the expected wall time per second of work with interval tau, checkpoint delta,
// recovery R and MTBF M is M e^(R/M) (e^((tau + delta)/M) - 1) / tau.
double daly_efficiency(double tau, double delta, double restart, double mtbf) {
  return tau / (mtbf * std::exp(restart / mtbf) * (std::exp((tau + delta) / mtbf) - 1));
}

}  // namespace

TEST_CASE("without failures a run is its steps and its checkpoints, exactly") {
  RunInputs in = one_class(0, 0);
  in.steps = 10'000;
  in.checkpoint_interval = 1000;
  in.checkpoint_block_ns = 30 * kSecond;
  in.replications = 3;
  const RunResult r = simulate_run(in);
  // Nine checkpoints: none after the last step.
  CHECK(r.replications[0].time.wall_ns == 10'000 * kSecond + 9 * 30 * kSecond);
  CHECK(r.replications[0].time.kept_ns == 10'000 * kSecond);
  CHECK(r.replications[0].finished);
  CHECK(r.effective_training_time.mean == doctest::Approx(10'000.0 / 10'270.0));
  // Asynchronous: 2 s blocked, then a 1,500 s drain behind 1,000 s of steps: each later
  // checkpoint waits 500 s for the one before.
  in.checkpoint_block_ns = 2 * kSecond;
  in.checkpoint_drain_ns = 1500 * kSecond;
  CHECK(simulate_replication(in, 0).time.wall_ns == 10'000 * kSecond + 9 * 502 * kSecond);
}

TEST_CASE("with exponential failures the effective training time is Daly's expectation") {
  // MTBF 2 h, a 60 s checkpoint, a 5 min recovery; 1,000 days per replication.
  const double mtbf = 7200, delta = 60, restart = 300;
  for (int tau : {300, 900, 3600}) {
    RunInputs in = one_class(mtbf, restart);
    in.duration_ns = 1000 * 86'400 * kSecond;
    in.checkpoint_interval = tau;
    in.checkpoint_block_ns = static_cast<std::int64_t>(delta) * kSecond;
    in.checkpoint_write_ns = in.checkpoint_block_ns;
    in.replications = 20;
    const RunResult r = simulate_run(in);
    const double expected = daly_efficiency(tau, delta, restart, mtbf);
    INFO("tau " << tau << ": simulated " << r.effective_training_time.mean << " +- "
                << r.effective_training_time.half_width << ", Daly " << expected);
    CHECK(std::abs(r.effective_training_time.mean - expected) <= 2 * r.effective_training_time.half_width + 1e-3);
  }
}

TEST_CASE("goodput over the checkpoint interval peaks where Young and Daly say") {
  const double mtbf = 7200, delta = 60, restart = 300;
  const double daly = daly_interval_s(delta, mtbf);
  CHECK(young_interval_s(delta, mtbf) == doctest::Approx(std::sqrt(2 * delta * mtbf)));
  CHECK(daly == doctest::Approx(929.516 * (1 + std::sqrt(60.0 / 14400) / 3 + 60.0 / 14400 / 9) - 60).epsilon(1e-5));
  CHECK(daly_interval_s(20000, 7200) == 7200);  // delta >= 2M: M
  double best_mean = 0, best_tau = 0, at_daly = 0, at_daly_hw = 0, best_hw = 0;
  for (double f : {0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0}) {
    RunInputs in = one_class(mtbf, restart);
    in.duration_ns = 1000 * 86'400 * kSecond;
    in.checkpoint_interval = static_cast<int>(std::round(daly * f));
    in.checkpoint_block_ns = static_cast<std::int64_t>(delta) * kSecond;
    in.replications = 20;
    const RunResult r = simulate_run(in);
    if (r.goodput_tokens_per_s.mean > best_mean) {
      best_mean = r.goodput_tokens_per_s.mean;
      best_hw = r.goodput_tokens_per_s.half_width;
      best_tau = f;
    }
    if (f == 1.0) {
      at_daly = r.goodput_tokens_per_s.mean;
      at_daly_hw = r.goodput_tokens_per_s.half_width;
    }
  }
  INFO("best at " << best_tau << " x Daly's interval");
  // The best interval's goodput is within the intervals' confidence of Daly's, and the best
  // lies between half and twice it.
  CHECK(best_mean - at_daly <= best_hw + at_daly_hw);
  CHECK(best_tau >= 0.5);
  CHECK(best_tau <= 2.0);
}

TEST_CASE("the Llama 3 table at its own scale gives its 419 unexpected and 47 planned interruptions") {
  RunInputs in;
  in.failures = default_failures();
  in.units = {16'384, 2'048, 16'384};
  in.gpus = 16'384;
  in.spares = 1'024;
  in.tokens_per_step = 16e6;
  in.step_ns = 8 * kSecond;
  in.duration_ns = std::int64_t{54} * 86'400 * kSecond;
  in.checkpoint_interval = 100;
  in.checkpoint_block_ns = 5 * kSecond;
  in.replications = 100;
  const RunResult r = simulate_run(in);
  // The run is interrupted on the wall clock, up or down: the expected count is the table's.
  CHECK(std::abs(r.interruptions.mean - 419) <= 2 * r.interruptions.half_width);
  const double planned = r.interruptions_by_component[static_cast<std::size_t>(Component::kMaintenance)];
  CHECK(planned == doctest::Approx(47).epsilon(0.1));
  CHECK(r.interruptions_by_component[static_cast<std::size_t>(Component::kGpu)] == doctest::Approx(196).epsilon(0.05));
  CHECK(run_mtbf_s(in.failures, in.units) == doctest::Approx(54 * 86'400.0 / 419).epsilon(1e-9));
}

TEST_CASE("spares, repairs and resubmissions") {
  RunInputs in = one_class(3600, 60);
  in.failures.rate(Component::kGpu).takes_node = true;
  in.failures.replace_ns = 120 * kSecond;
  in.failures.repair_s = 7200;
  in.failures.max_restarts = 3;
  in.failures.resubmit_ns = 600 * kSecond;
  in.duration_ns = 30 * 86'400 * kSecond;
  in.checkpoint_interval = 600;
  in.checkpoint_block_ns = 10 * kSecond;
  // Plenty of spares: every node failure waits only for the swap.
  in.spares = 1000;
  const Replication plenty = simulate_replication(in, 0);
  const int n = plenty.interruptions[0];
  CHECK(n > 100);
  CHECK(plenty.spares_short == 0);
  CHECK(plenty.resubmissions == n / 4);  // every fourth interruption, after three in-place restarts
  // A swap is cut short when another failure (or the run's end) interrupts it: with a 1 h MTBF
  // and 3 min recoveries, a few are.
  CHECK(plenty.time.waiting_ns <= std::int64_t{n} * 120 * kSecond);
  CHECK(plenty.time.waiting_ns >= std::int64_t{n} * 108 * kSecond);
  // No spare: each failure waits for a repair (2 h on average, against a 1 h MTBF).
  in.spares = 0;
  const Replication none = simulate_replication(in, 0);
  CHECK(none.spares_short > 0);
  CHECK(none.time.waiting_ns > plenty.time.waiting_ns * 10);
}

TEST_CASE("replications do not depend on the thread count") {
  RunInputs in;
  in.failures = default_failures();
  in.failures.rate(Component::kGpu).weibull_shape = 0.7;
  in.units = {4096, 512, 4096};
  in.gpus = 4096;
  in.spares = 8;
  in.tokens_per_step = 4e6;
  in.step_ns = 3 * kSecond;
  in.steps = 200'000;
  in.checkpoint_interval = 200;
  in.checkpoint_block_ns = 4 * kSecond;
  in.checkpoint_drain_ns = 40 * kSecond;
  in.restore_ns = 20 * kSecond;
  in.replications = 16;
  in.seed = 7;
  RunResult one, many;
  {
    tbb::global_control only(tbb::global_control::max_allowed_parallelism, 1);
    one = simulate_run(in);
  }
  many = simulate_run(in);
  for (std::size_t i = 0; i < one.replications.size(); ++i) {
    CHECK(one.replications[i].time.wall_ns == many.replications[i].time.wall_ns);
    CHECK(one.replications[i].interruptions == many.replications[i].interruptions);
    CHECK(one.replications[i].recovery_s == many.replications[i].recovery_s);
  }
  CHECK(one.wall_s.mean == many.wall_s.mean);
  // Replications differ from one another (their own streams).
  CHECK(one.replications[0].time.wall_ns != one.replications[1].time.wall_ns);
  // And every part of the wall time is accounted for.
  for (const Replication& rep : one.replications) {
    const RunTime& t = rep.time;
    CHECK(t.kept_ns + t.data_ns + t.lost_ns + t.checkpoint_ns + t.detection_ns + t.waiting_ns + t.restart_ns +
              t.restore_ns + t.resubmit_ns ==
          t.wall_ns);
    CHECK(rep.finished);
    CHECK(rep.steps_kept == 200'000);
  }
}

TEST_CASE("replication 0's timeline is kept only when asked for, and capped at a million events") {
  RunInputs in = one_class(0, 0);
  in.steps = 3'000'000;
  in.checkpoint_interval = 1;
  in.checkpoint_block_ns = 1;
  CHECK(simulate_replication(in, 0).timeline.empty());
  in.timeline = true;
  const Replication r = simulate_replication(in, 0);
  CHECK(r.timeline.size() == 1'000'000);  // one training segment, then checkpoint blocks up to the cap
  CHECK(r.finished);
  CHECK(r.time.wall_ns == 3'000'000 * kSecond + 2'999'999);
  CHECK(simulate_replication(in, 1).timeline.empty());  // replication 0's only
}

TEST_CASE("a class's own detection replaces the failures' for its interruptions") {
  RunInputs in = one_class(3600, 60);  // an hour's MTBF, a minute's restart
  in.failures.detection_ns = 600 * kSecond;
  in.steps = 100'000;
  in.replications = 1;
  const Replication watchdog = simulate_replication(in, 0);
  REQUIRE_FALSE(watchdog.recovery_s.empty());
  in.failures.rate(Component::kGpu).detection_ns = 5 * kSecond;  // a crash the launcher sees at once
  const Replication crash = simulate_replication(in, 0);
  REQUIRE_FALSE(crash.recovery_s.empty());
  // Recovery without a failure during it: detection, then the restart.
  CHECK(*std::min_element(watchdog.recovery_s.begin(), watchdog.recovery_s.end()) == doctest::Approx(660));
  CHECK(*std::min_element(crash.recovery_s.begin(), crash.recovery_s.end()) == doctest::Approx(65));
  CHECK(crash.time.detection_ns < watchdog.time.detection_ns);
}

TEST_CASE("a calendar class comes every period from a phase each replication draws") {
  // Maintenance every 10 hours over a 105-hour run: each replication has 10 or 11 windows, 10.5 on
  // average, each one exactly a period after the last; the same seed draws the same phase.
  RunInputs in = one_class(0, 0);
  ComponentRate& m = in.failures.rate(Component::kMaintenance);
  m.mtbf_s = 10 * 3600.0;
  m.unit = Unit::kGpu;
  m.calendar = true;
  in.duration_ns = 105 * 3600 * kSecond;
  in.checkpoint_interval = 100;
  in.replications = 400;
  in.timeline = true;
  const RunResult r = simulate_run(in);
  double windows = 0;
  for (const Replication& rep : r.replications) {
    const int n = rep.interruptions[static_cast<int>(Component::kMaintenance)];
    CHECK((n == 10 || n == 11));
    windows += n;
  }
  CHECK(windows / 400 == doctest::Approx(10.5).epsilon(0.03));
  CHECK(r.interruptions.mean == 0);  // planned: none counts as unplanned
  std::vector<std::int64_t> starts;
  for (const RunEvent& e : r.replications.front().timeline) {
    if (e.kind == RunEvent::Kind::kFailure && e.component == Component::kMaintenance) starts.push_back(e.start_ns);
  }
  REQUIRE(starts.size() >= 10);
  for (std::size_t i = 1; i < starts.size(); ++i) CHECK(starts[i] - starts[i - 1] == 10 * 3600 * kSecond);
  CHECK(simulate_replication(in, 7).time.wall_ns == simulate_replication(in, 7).time.wall_ns);
}
