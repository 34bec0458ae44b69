// fathom plan on a wafer-scale cluster: a training run's candidates are the steps `fathom simulate`
// gives with their values, ranked by time to train, held to the deadline, the same on one thread
// or two; a service's are simulated at the fewest replicas that meet its SLO, priced.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "plan/planner.hpp"
#include "report/inference/inference_report.hpp"
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

TEST_CASE("wafer plan: a service on wafers, each candidate at the fewest replicas that meet its SLO, priced") {
  const std::string file = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/cs3-llama3.1-70b-serving-plan.yaml";
  const fathom::plan::PlanResult r = fathom::plan::run_plan(file, {}, fathom::plan::PlanOptions{});
  CHECK(r.wafer);
  REQUIRE(r.candidates.size() == 3 * 3);
  REQUIRE_FALSE(r.ranking.empty());
  for (const fathom::plan::Evaluated& e : r.candidates) {
    CAPTURE(e.index);
    REQUIRE(e.status == fathom::plan::Status::kFeasible);
    CHECK(e.service);
    CHECK(e.priced);
    // A system is a node: a replica of 70B's 16-bit weights takes four wafers however it splits them.
    CHECK(e.nodes == e.gpus);
    CHECK(e.gpus == 4 * e.serving.replicas);
    CHECK(e.serving.p99_ttft_s <= 0.5);
    CHECK(e.serving.p99_tpot_s <= 0.02);
  }
  // Each candidate is the service simulate runs with its values at the replicas the search found.
  const fathom::plan::Evaluated& best = r.candidates[r.ranking.front()];
  std::vector<std::string> set = {"workload.serving.tp=" + best.values[0],
                                  "workload.serving.max_batched_tokens=" + best.values[1],
                                  "workload.serving.replicas=" + std::to_string(best.serving.replicas)};
  const fathom::report::InferenceReport direct =
      fathom::report::evaluate_inference(fathom::scenario::load_scenario(file, set));
  CHECK(best.serving.p99_tpot_s == direct.metrics.tpot_s.p99);
  CHECK(best.serving.usd_per_hour == doctest::Approx(direct.usd_per_hour()));
  // Ranked by cost an hour first.
  for (std::size_t k = 1; k < r.ranking.size(); ++k) {
    CHECK(r.candidates[r.ranking[k - 1]].serving.usd_per_hour <= r.candidates[r.ranking[k]].serving.usd_per_hour);
  }
  // Splitting every layer over four wafers costs an all-reduce a layer over their I/O: it needs more
  // replicas than a pipeline of four for the same SLO.
  for (const fathom::plan::Evaluated& e : r.candidates) {
    if (e.values[0] == "4") CHECK(e.serving.replicas > best.serving.replicas);
  }
}
