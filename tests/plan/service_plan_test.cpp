// fathom plan for an inference service: each candidate's replica count is the fewest that meets
// the SLO at P99 (the count below it misses), its figures are what `fathom simulate` gives with
// its values and that count set, the ranking follows the cost per hour, the result is the same on
// one thread or two, and the service plan's own errors are located.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "plan/journal.hpp"
#include "plan/plan_report.hpp"
#include "plan/planner.hpp"
#include "plan/service_candidate.hpp"
#include "report/inference/inference_report.hpp"
#include "tests/support/one_leaf_cluster.hpp"
#include "tests/support/temp_scenario.hpp"

namespace {

using fathom::plan::Evaluated;
using fathom::plan::PlanOptions;
using fathom::plan::PlanResult;
using fathom::plan::run_plan;
using fathom::plan::Status;

std::string write_scenario(const std::string& name, const std::string& text) {
  return fathom::test::write_temp_scenario("fathom-service-plan-tests", name, text);
}

// Llama 3.1 8B on two DGX H100, 40 requests a second, priced, with `plan` appended.
std::string service_with(const std::string& plan) {
  return "seed: 3\n" + fathom::test::one_leaf_dgx_h100_cluster(2) +
         "workload:\n"
         "  kind: inference\n"
         "  model: llama3.1-8b\n"
         "  serving: {tp: 1, replicas: 1}\n"
         "  requests:\n"
         "    arrival: poisson\n"
         "    rate: 40\n"
         "    count: 400\n"
         "    prompt_tokens: {distribution: uniform, min: 200, max: 2000}\n"
         "    output_tokens: 128\n"
         "  slo: {ttft: 300ms, tpot: 20ms}\n"
         "cost: {}\n" +
         plan;
}

const char* kPlan =
    "plan:\n"
    "  vary:\n"
    "    tp: [1, 2]\n"
    "    max_batched_tokens: [1024, 8192]\n"
    "  fewest_replicas: {from: 1, to: 16}\n"
    "  objective: cost\n";

fathom::report::InferenceReport simulate(const std::string& file, std::vector<std::string> sets, int replicas) {
  sets.push_back("workload.serving.replicas=" + std::to_string(replicas));
  return fathom::report::evaluate_inference(fathom::scenario::load_scenario(file, sets));
}

std::string csv_of(const PlanResult& r) {
  std::ostringstream out;
  fathom::plan::write_plan_csv(out, r);
  return out.str();
}

}  // namespace

TEST_CASE("service plan: each candidate's replicas are the fewest meeting the SLO, its figures fathom simulate's") {
  const std::string file = write_scenario("service.yaml", service_with(kPlan));
  const PlanResult r = run_plan(file, {}, PlanOptions{});
  REQUIRE(r.candidates.size() == 4);
  REQUIRE(r.ranking.size() >= 2);
  const auto combos = fathom::plan::candidate_overrides(*fathom::scenario::load_scenario(file).plan);
  int searched = 0;
  for (const Evaluated& e : r.candidates) {
    CAPTURE(e.index);
    CHECK(e.service);
    if (e.status != Status::kFeasible) continue;
    const int n = e.serving.replicas;
    const auto at_n = simulate(file, combos[e.index], n);
    const fathom::scenario::InferenceWorkload& w = at_n.scenario.inference;
    // The same figures, to the bit, as the service simulated alone with those values.
    CHECK(e.serving.p99_ttft_s == at_n.metrics.ttft_s.p99);
    CHECK(e.serving.p99_tpot_s == at_n.metrics.tpot_s.p99);
    CHECK(e.serving.p99_e2e_s == at_n.metrics.e2e_s.p99);
    CHECK(e.tokens_per_s == at_n.metrics.throughput_tokens_per_s);
    CHECK(e.serving.usd_per_hour == at_n.usd_per_hour());
    CHECK(e.gpus == n * w.serving.tp);
    // It meets the SLO; one replica fewer does not.
    CHECK(fathom::plan::slo_miss(at_n.metrics, w.slo).empty());
    CHECK(at_n.metrics.ttft_s.p99 <= w.slo.ttft_s);
    CHECK(at_n.metrics.tpot_s.p99 <= w.slo.tpot_s);
    if (n > 1) {
      ++searched;
      const auto fewer = simulate(file, combos[e.index], n - 1);
      CHECK_FALSE(fathom::plan::slo_miss(fewer.metrics, w.slo).empty());
    }
    // Doubling then bisecting: at most twice the bits of the range's size, plus one.
    CHECK(e.serving.evaluations >= 1);
    CHECK(e.serving.evaluations <= 9);
  }
  CHECK(searched > 0);  // the SLO needs more than one replica somewhere: the search is exercised
  // Ranked by the cost per hour: the service's GPUs at the cluster's cost per GPU-hour.
  for (std::size_t k = 1; k < r.ranking.size(); ++k) {
    CHECK(r.candidates[r.ranking[k - 1]].serving.usd_per_hour <= r.candidates[r.ranking[k]].serving.usd_per_hour);
  }
  for (std::size_t i : r.ranking) {
    const Evaluated& e = r.candidates[i];
    CHECK(e.serving.usd_per_hour == doctest::Approx(e.gpus * e.usd_per_gpu_hour).epsilon(1e-9));
  }
}

TEST_CASE("service plan: the same result on one thread or two, to the byte") {
  const std::string file = write_scenario("service-threads.yaml", service_with(kPlan));
  PlanOptions one;
  one.threads = 1;
  PlanOptions two;
  two.threads = 2;
  CHECK(csv_of(run_plan(file, {}, one)) == csv_of(run_plan(file, {}, two)));
}

TEST_CASE("service plan: a configuration that misses the SLO at the most replicas allowed says so") {
  const std::string file = write_scenario("service-miss.yaml", service_with("plan:\n"
                                                                            "  vary: {tp: [1]}\n"
                                                                            "  fewest_replicas: {from: 1, to: 1}\n"));
  const PlanResult r = run_plan(file, {}, PlanOptions{});
  REQUIRE(r.candidates.size() == 1);
  const Evaluated& e = r.candidates[0];
  CHECK(e.status == Status::kMissesSlo);
  CHECK(e.serving.replicas == 1);
  CHECK(e.reason.find("with 1 replica, the most plan.fewest_replicas allows") != std::string::npos);
  CHECK(e.reason.find("P99 T") != std::string::npos);
  CHECK(r.ranking.empty());
}

TEST_CASE("service plan: more replicas than the cluster holds stop the search there") {
  // Two nodes of eight GPUs hold 16 replicas of TP 1 at most; a target no count meets.
  const std::string file = write_scenario("service-cap.yaml", service_with("plan:\n"
                                                                           "  vary: {tp: [8]}\n"
                                                                           "  fewest_replicas: {from: 1, to: 64}\n") +
                                                                  "");
  PlanResult r = run_plan(file, {"workload.slo.tpot=1ms"}, PlanOptions{});
  REQUIRE(r.candidates.size() == 1);
  const Evaluated& e = r.candidates[0];
  CHECK(e.status == Status::kMissesSlo);
  CHECK(e.serving.replicas == 2);  // two nodes of one TP-8 replica each
  CHECK(e.reason.find("the most the cluster holds") != std::string::npos);
}

TEST_CASE("service plan: a service candidate goes through the journal to the bit") {
  Evaluated e;
  e.index = 7;
  e.status = Status::kMissesSlo;
  e.reason = "P99 TPOT 61.2 ms over the SLO's 50 ms";
  e.service = true;
  e.gpus = 32;
  e.nodes = 4;
  e.serving.replicas = 8;
  e.serving.evaluations = 5;
  e.serving.p99_ttft_s = 0.1 / 3;
  e.serving.p99_tpot_s = 0.0612;
  e.serving.p99_e2e_s = 12.5;
  e.serving.requests_per_s = 5.5;
  e.serving.goodput = 0.987;
  e.serving.usd_per_hour = 61.25;
  e.serving.usd_per_million_tokens = 1.0 / 7;
  const auto back = fathom::plan::parse_journal_line(fathom::plan::journal_line(e));
  REQUIRE(back.has_value());
  CHECK(back->service);
  CHECK(back->serving.replicas == 8);
  CHECK(back->serving.evaluations == 5);
  CHECK(back->serving.p99_ttft_s == e.serving.p99_ttft_s);
  CHECK(back->serving.usd_per_million_tokens == e.serving.usd_per_million_tokens);
  CHECK(fathom::plan::journal_line(*back) == fathom::plan::journal_line(e));
}

TEST_CASE("service plan: the section's errors name the key") {
  auto error_of = [](const std::string& plan) {
    return fathom::test::load_error_key(write_scenario("bad-service.yaml", service_with(plan)));
  };
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n") == "(loaded)");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  deadline: 30d\n") == "plan.deadline");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  objective: mfu\n") == "plan.objective");
  CHECK(error_of("plan:\n  vary: {replicas: [1, 2]}\n  fewest_replicas: {to: 4}\n") == "plan.vary.replicas");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  fewest_replicas: {from: 4, to: 2}\n") == "plan.fewest_replicas.to");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  fewest_replicas: 4\n") == "plan.fewest_replicas");
  CHECK(error_of("plan:\n  vary: {micro_batch: [1]}\n") == "plan.vary.micro_batch");
}

TEST_CASE("service plan: a pipeline's GPUs and nodes count every stage") {
  // Two replicas of tp 4 x pp 2 (a node each), or one of tp 8 x pp 2 (both nodes).
  const std::string file = write_scenario("service-pp.yaml", service_with("plan:\n"
                                                                          "  vary: {tp: [4, 8], pp: [2]}\n"));
  const PlanResult r = run_plan(file, {"workload.serving.replicas=1"}, PlanOptions{});
  REQUIRE(r.candidates.size() == 2);
  for (const Evaluated& e : r.candidates) {
    CAPTURE(e.reason);
    REQUIRE(e.simulated());
  }
  CHECK(r.candidates[0].gpus == 8);
  CHECK(r.candidates[0].nodes == 1);
  CHECK(r.candidates[1].gpus == 16);
  CHECK(r.candidates[1].nodes == 2);
}
