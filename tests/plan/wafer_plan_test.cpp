// fathom plan on a wafer-scale training run: every candidate is the step `fathom simulate` gives
// with its values, ranked by time to train, held to the deadline, the same on one thread or two.
#include <doctest/doctest.h>

#include <string>

#include "plan/planner.hpp"
#include "report/wafer/wafer_report.hpp"
#include "scenarios/scenario.hpp"

namespace {

const std::string kExample = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/cs3-llama3-70b-plan.yaml";

}  // namespace

TEST_CASE("wafer plan: candidates are simulate's steps, ranked by time, held to the deadline") {
  fathom::plan::PlanOptions one;
  const fathom::plan::PlanResult r = fathom::plan::run_plan(kExample, {}, one);
  CHECK(r.wafer);
  REQUIRE(r.candidates.size() == 4 * 4 * 2);
  REQUIRE_FALSE(r.ranking.empty());
  // Each candidate as simulate gives it: the first, 256 systems, 4,096 samples, micro-batch 1.
  const fathom::plan::Evaluated& first = r.candidates.front();
  const fathom::scenario::Scenario s = fathom::scenario::load_scenario(
      kExample, {"cluster.systems=256", "workload.global_batch=4096", "workload.micro_batch=1"});
  const fathom::report::WaferReport direct = fathom::report::evaluate_wafer(s);
  CHECK(first.step_s == direct.step.step_s);
  CHECK(first.time_to_train_s == direct.step.time_to_train_s);
  CHECK(first.gpus == 256);
  // Ranked by time to train, every feasible one within 30 days, every other one beyond.
  for (std::size_t k = 1; k < r.ranking.size(); ++k) {
    CHECK(r.candidates[r.ranking[k - 1]].time_to_train_s <= r.candidates[r.ranking[k]].time_to_train_s);
  }
  for (const fathom::plan::Evaluated& e : r.candidates) {
    CAPTURE(e.index);
    if (e.status == fathom::plan::Status::kFeasible) CHECK(e.time_to_train_s <= 30 * 86400.0);
    if (e.status == fathom::plan::Status::kMissesDeadline) CHECK(e.time_to_train_s > 30 * 86400.0);
  }
  // The scenario as written (64 systems) is evaluated beside them.
  CHECK(r.as_written.gpus == 64);
  CHECK(r.as_written.time_to_train_s > 0);
  // The same on two threads.
  fathom::plan::PlanOptions two;
  two.threads = 2;
  const fathom::plan::PlanResult again = fathom::plan::run_plan(kExample, {}, two);
  CHECK(again.ranking == r.ranking);
  for (std::size_t i = 0; i < r.candidates.size(); ++i) CHECK(again.candidates[i].step_s == r.candidates[i].step_s);
}

TEST_CASE("wafer plan: a service on wafers is not planned yet, and says so at plan") {
  const std::string serving = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/cs3-llama3.1-70b-serving.yaml";
  try {
    fathom::scenario::load_scenario(serving, {"plan={vary: {workload.serving.replicas: [1, 2]}}"});
    FAIL("accepted");
  } catch (const fathom::scenario::ScenarioError& e) {
    CHECK(e.key_path() == "plan");
  }
}
