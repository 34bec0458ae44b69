// Pipeline schedules against their closed forms: on a compute-only pipeline with equal
// stages, 1F1B takes (m + p - 1)(F + B) and its bubble fraction is (p - 1)/(m + p - 1);
// interleaving v chunks shrinks the bubble to (p - 1)/(v m + p - 1) of the ideal. Every
// schedule runs each pass once, in dependency order, without deadlock.
#include "models/workloads/training/pipeline_schedule.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <tuple>

using fathom::sim::SimTime;
using namespace fathom::train;

namespace {

PipelineCosts uniform(int stages, int chunks, std::int64_t forward_ns, std::int64_t backward_ns, std::int64_t send_ns) {
  PipelineCosts c;
  for (int s = 0; s < stages; ++s) {
    c.forward.emplace_back(static_cast<std::size_t>(chunks), SimTime::from_ns(forward_ns));
    c.backward.emplace_back(static_cast<std::size_t>(chunks), SimTime::from_ns(backward_ns));
    c.send_forward.push_back(SimTime::from_ns(send_ns));
    c.send_backward.push_back(SimTime::from_ns(send_ns));
  }
  return c;
}

void check_dependencies(const PipelineRun& run, int stages, int chunks, const PipelineCosts& costs) {
  // Every (direction, micro-batch, virtual stage) exactly once, and never before its input.
  std::set<std::tuple<bool, int, int>> seen;
  std::map<std::tuple<bool, int, int>, SimTime> finish;
  for (int s = 0; s < stages; ++s) {
    for (const auto& pt : run.stages[static_cast<std::size_t>(s)]) {
      const int vs = pt.pass.chunk * stages + s;
      CHECK(seen.insert({pt.pass.forward, pt.pass.micro_batch, vs}).second);
      finish[{pt.pass.forward, pt.pass.micro_batch, vs}] = pt.finish;
      CHECK(pt.start >= pt.input_ready);
    }
  }
  for (const auto& [key, end] : finish) {
    const auto [forward, mb, vs] = key;
    if (forward && vs > 0) {
      CHECK(finish.at({true, mb, vs}) - finish.at({true, mb, vs - 1}) >= costs.forward[0][0] + costs.send_forward[0]);
    }
    if (!forward && vs < stages * chunks - 1) {
      CHECK(end - finish.at({false, mb, vs + 1}) >= costs.backward[0][0] + costs.send_backward[0]);
    }
  }
}

}  // namespace

TEST_CASE("1F1B on a compute-only pipeline takes (m + p - 1)(F + B): bubble (p - 1)/(m + p - 1)") {
  for (int p : {1, 2, 4, 8}) {
    for (int m : {1, 3, 8, 32}) {
      CAPTURE(p);
      CAPTURE(m);
      const auto costs = uniform(p, 1, 1000, 2000, 0);
      const auto run = run_pipeline(one_f_one_b(p, m), costs, 1);
      CHECK(run.makespan.ns() == static_cast<std::int64_t>(m + p - 1) * 3000);
      const double bubble = 1.0 - static_cast<double>(m) * 3000 / static_cast<double>(run.makespan.ns());
      CHECK(bubble == doctest::Approx(static_cast<double>(p - 1) / (m + p - 1)));
      check_dependencies(run, p, 1, costs);
    }
  }
}

TEST_CASE("interleaved 1F1B with v chunks takes m(F + B) + (p - 1)(F + B)/v") {
  for (int p : {2, 4}) {
    for (int v : {2, 3}) {
      for (int groups : {1, 2, 4}) {
        const int m = groups * p;
        CAPTURE(p);
        CAPTURE(v);
        CAPTURE(m);
        // A chunk is 1/v of a stage: forward 1000/v... use multiples of v to stay exact.
        const std::int64_t f = 600, b = 1200;
        const auto costs = uniform(p, v, f, b, 0);
        const auto run = run_pipeline(interleaved_one_f_one_b(p, m, v), costs, v);
        CHECK(run.makespan.ns() == static_cast<std::int64_t>(m) * v * (f + b) + (p - 1) * (f + b));
        check_dependencies(run, p, v, costs);
      }
    }
  }
}

TEST_CASE("pipeline sends: one micro-batch goes down and back, p (F + B) + 2 (p - 1) c; more pay at least that") {
  const int p = 4;
  const auto costs = uniform(p, 1, 1000, 2000, 100);
  CHECK(run_pipeline(one_f_one_b(p, 1), costs, 1).makespan.ns() == p * 3000 + 2 * (p - 1) * 100);
  std::int64_t previous = 0;
  for (int m : {2, 4, 8, 16}) {
    const auto makespan = run_pipeline(one_f_one_b(p, m), costs, 1).makespan.ns();
    CHECK(makespan >= (m + p - 1) * 3000 + 2 * (p - 1) * 100);
    CHECK(makespan > previous);
    previous = makespan;
  }
}

TEST_CASE("activations in flight: stage s of 1F1B holds min(p - s, m) micro-batches") {
  const auto in_flight = peak_in_flight(one_f_one_b(8, 4));
  for (int s = 0; s < 8; ++s) CHECK(in_flight[static_cast<std::size_t>(s)] == std::min(8 - s, 4));
  // Interleaved: stage 0 holds (p - 1) * 2 + (v - 1) * p + 1 chunks (Megatron's warm-up + 1).
  const auto inter = peak_in_flight(interleaved_one_f_one_b(4, 8, 2));
  CHECK(inter[0] == 3 * 2 + 4 + 1);
  CHECK(inter[3] == 4 + 1);
}

TEST_CASE("interleaving needs micro-batches in multiples of the stages") {
  CHECK_THROWS_AS(interleaved_one_f_one_b(4, 6, 2), std::invalid_argument);
  CHECK_NOTHROW(interleaved_one_f_one_b(4, 8, 2));
}
