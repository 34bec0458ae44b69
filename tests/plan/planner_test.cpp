// fathom plan's search: the candidates are the product of the plan's axes, each evaluated
// exactly as `fathom simulate` would evaluate the scenario with those keys set, ranked by the
// objective, the same on one thread or two; the plan section's errors are located.
#include "plan/planner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "plan/plan_report.hpp"
#include "report/training/training_report.hpp"
#include "tests/support/temp_scenario.hpp"

namespace {

using fathom::plan::Evaluated;
using fathom::plan::PlanOptions;
using fathom::plan::PlanResult;
using fathom::plan::run_plan;
using fathom::plan::Status;

std::string write_scenario(const std::string& name, const std::string& text) {
  return fathom::test::write_temp_scenario("fathom-plan-tests", name, text);
}

// Llama 3 8B on 4 DGX H100 (32 GPUs), priced, with `plan` appended.
std::string scenario_with(const std::string& plan) {
  return "cluster:\n"
         "  nodes: 4\n"
         "  node: dgx-h100\n"
         "  fabric:\n"
         "    kind: rail-optimised\n"
         "    tiers: 2\n"
         "    radix: 64\n"
         "    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "workload:\n"
         "  kind: training\n"
         "  model: llama3-8b\n"
         "  sequence: 4096\n"
         "  global_batch: 64\n"
         "  tokens: 1e10\n"
         "  parallel: {tp: 8}\n"
         "cost: {}\n" +
         plan;
}

const char* kPlan =
    "plan:\n"
    "  vary:\n"
    "    nodes: [2, 4]\n"
    "    tp: [1, 2, 4, 8]\n"
    "    pp: [1, 3, 4]\n"
    "    micro_batch: [1, 2]\n";

std::string csv_of(const PlanResult& r) {
  std::ostringstream out;
  fathom::plan::write_plan_csv(out, r);
  return out.str();
}

}  // namespace

TEST_CASE("plan: the candidates are every combination of the axes, the last fastest") {
  const std::string file = write_scenario("grid.yaml", scenario_with(kPlan));
  const auto s = fathom::scenario::load_scenario(file);
  REQUIRE(s.plan.has_value());
  const auto combos = fathom::plan::candidate_overrides(*s.plan);
  REQUIRE(combos.size() == 2 * 4 * 3 * 2);
  CHECK(combos.front() == std::vector<std::string>{"cluster.nodes=2", "workload.parallel.tp=1",
                                                   "workload.parallel.pp=1", "workload.micro_batch=1"});
  CHECK(combos[1] == std::vector<std::string>{"cluster.nodes=2", "workload.parallel.tp=1", "workload.parallel.pp=1",
                                              "workload.micro_batch=2"});
  CHECK(combos.back() == std::vector<std::string>{"cluster.nodes=4", "workload.parallel.tp=8", "workload.parallel.pp=4",
                                                  "workload.micro_batch=2"});
}

TEST_CASE("plan: each candidate is what fathom simulate gives with its keys set, ranked by the objective") {
  const std::string file = write_scenario("grid.yaml", scenario_with(kPlan));
  PlanOptions options;
  options.threads = 2;
  std::size_t last_done = 0;
  options.progress = [&](std::size_t done, std::size_t total) {
    CHECK(done > last_done);
    CHECK(total == 48);
    last_done = done;
  };
  const PlanResult r = run_plan(file, {}, options);
  CHECK(last_done == 48);
  REQUIRE(r.candidates.size() == 48);
  CHECK(r.axes == std::vector<std::string>{"nodes", "tp", "pp", "micro_batch"});
  const auto combos = fathom::plan::candidate_overrides(*fathom::scenario::load_scenario(file).plan);
  std::size_t feasible = 0;
  std::size_t invalid = 0;
  std::size_t out_of_memory = 0;
  for (const Evaluated& e : r.candidates) {
    CAPTURE(e.index);
    if (e.values[2] == "3") {
      CHECK(e.status == Status::kInvalid);
      CHECK(e.reason.find("workload.gpus: expected a multiple of tp * pp * cp") != std::string::npos);
    }
    if (e.status == Status::kOutOfMemory) ++out_of_memory;
    if (e.status == Status::kInvalid) {
      ++invalid;
      CHECK_FALSE(e.reason.empty());
      continue;
    }
    // Evaluated on its own, the candidate gives the same figures to the bit.
    const auto alone = fathom::scenario::load_scenario(file, combos[e.index]);
    const auto report = fathom::report::evaluate_training(alone);
    CHECK(e.nodes == alone.cluster.nodes);
    if (e.status == Status::kOutOfMemory) {
      CHECK_FALSE(report.fits());
      continue;
    }
    REQUIRE(report.fits());
    ++feasible;
    CHECK(e.step_s == report.result.step_seconds);
    CHECK(e.time_to_train_s == report.result.time_to_train_s);
    CHECK(e.capex_usd == report.cost->capex_usd);
  }
  // pp 3 never divides the GPUs (16 or 32) and is refused by the loader, with its reason; tp 1
  // on 2 nodes does not fit in memory; the rest run.
  CHECK(invalid >= 16);
  CHECK(out_of_memory > 0);
  CHECK(feasible > 0);
  REQUIRE(r.ranking.size() == feasible);
  // The scenario as written (4 nodes, tp 8, pp and micro-batch left at their defaults of 1) is
  // candidate (4, 8, 1, 1), and ranks where that candidate does.
  CHECK(r.as_written.values == std::vector<std::string>{"4", "8", "default", "default"});
  const auto twin = std::find_if(r.candidates.begin(), r.candidates.end(), [](const Evaluated& e) {
    return e.values == std::vector<std::string>{"4", "8", "1", "1"};
  });
  REQUIRE(twin != r.candidates.end());
  CHECK(twin->step_s == r.as_written.step_s);
  const auto twin_rank = std::find(r.ranking.begin(), r.ranking.end(), twin->index) - r.ranking.begin() + 1;
  CHECK(r.as_written_rank == static_cast<std::size_t>(twin_rank));
  // Ranked by time to train, best first; no feasible candidate beats the first.
  for (std::size_t k = 1; k < r.ranking.size(); ++k) {
    CHECK(r.candidates[r.ranking[k - 1]].time_to_train_s <= r.candidates[r.ranking[k]].time_to_train_s);
  }
}

TEST_CASE("plan: two objectives give the Pareto front of the feasible candidates") {
  const std::string file = write_scenario("grid.yaml", scenario_with(kPlan));
  const PlanResult r = run_plan(file, {"plan.objective=[time, cost]"}, {});
  REQUIRE(r.objectives.size() == 2);
  REQUIRE_FALSE(r.pareto.empty());
  const auto at_least_as_good = [](const Evaluated& a, const Evaluated& b) {
    return a.time_to_train_s <= b.time_to_train_s && a.usd_per_run <= b.usd_per_run;
  };
  const auto dominates = [&](const Evaluated& a, const Evaluated& b) {
    return at_least_as_good(a, b) && (a.time_to_train_s < b.time_to_train_s || a.usd_per_run < b.usd_per_run);
  };
  std::vector<char> on_front(r.candidates.size(), 0);
  for (std::size_t i : r.pareto) on_front[i] = 1;
  for (std::size_t i : r.ranking) {
    const Evaluated& e = r.candidates[i];
    bool dominated = false;
    for (std::size_t j : r.ranking) dominated = dominated || dominates(r.candidates[j], e);
    CHECK(on_front[i] == (dominated ? 0 : 1));
  }
  // The fastest is on the front, and so is the cheapest.
  CHECK(on_front[r.ranking.front()] == 1);
  const auto cheapest = std::min_element(r.ranking.begin(), r.ranking.end(), [&](std::size_t a, std::size_t b) {
    return r.candidates[a].usd_per_run < r.candidates[b].usd_per_run;
  });
  CHECK(on_front[*cheapest] == 1);
  CHECK(csv_of(r).find("index,rank,pareto,nodes,tp,pp,micro_batch,status") == 0);
  // One objective, no front.
  CHECK(run_plan(file, {}, {}).pareto.empty());
}

TEST_CASE("plan: the same result on one thread or two, to the byte") {
  const std::string file = write_scenario("grid.yaml", scenario_with(kPlan));
  PlanOptions one;
  one.threads = 1;
  PlanOptions two;
  two.threads = 2;
  const PlanResult a = run_plan(file, {}, one);
  const PlanResult b = run_plan(file, {}, two);
  CHECK(csv_of(a) == csv_of(b));
  CHECK(a.ranking == b.ranking);
}

TEST_CASE("plan: a deadline rejects the slow, objective nodes ranks the fewest first, ties by time") {
  const std::string file =
      write_scenario("deadline.yaml", scenario_with("plan:\n  vary:\n    nodes: [1, 2, 4]\n    micro_batch: [1, 2]\n"
                                                    "  objective: nodes\n"));
  const PlanResult open = run_plan(file, {}, {});
  REQUIRE(open.ranking.size() >= 3);
  // The fastest run of all sets a deadline that only some meet.
  double fastest = 1e300;
  double slowest = 0;
  for (std::size_t i : open.ranking) {
    fastest = std::min(fastest, open.candidates[i].time_to_train_s);
    slowest = std::max(slowest, open.candidates[i].time_to_train_s);
  }
  CHECK(open.candidates[open.ranking.front()].nodes == 1);
  for (std::size_t k = 1; k < open.ranking.size(); ++k) {
    const Evaluated& x = open.candidates[open.ranking[k - 1]];
    const Evaluated& y = open.candidates[open.ranking[k]];
    CHECK((x.nodes < y.nodes || (x.nodes == y.nodes && x.time_to_train_s <= y.time_to_train_s)));
  }
  const double deadline_s = (fastest + slowest) / 2;
  const PlanResult held = run_plan(file, {"plan.deadline=" + std::to_string(deadline_s) + "s"}, {});
  for (const Evaluated& e : held.candidates) {
    if (!e.simulated()) continue;
    CHECK((e.status == Status::kMissesDeadline) == (e.time_to_train_s > deadline_s));
  }
  CHECK(held.ranking.size() < open.ranking.size());
  CHECK_FALSE(held.ranking.empty());
  const std::string summary = [&] {
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&buffer, &size);
    fathom::plan::write_plan_summary(f, held, 3);
    std::fclose(f);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
  }();
  CHECK(summary.find("misses deadline") != std::string::npos);
  CHECK(summary.find("best: nodes ") != std::string::npos);
  CHECK(summary.find("best rejected:") != std::string::npos);
}

TEST_CASE("plan: pruning by the step's lower bound drops only candidates that miss the deadline") {
  const std::string file = write_scenario(
      "bound.yaml", scenario_with("plan:\n  vary:\n    nodes: [1, 2, 4]\n    tp: [1, 2, 4, 8]\n    pp: [1, 2, 4]\n"
                                  "    micro_batch: [1, 2]\n    recompute: [selective, full]\n"));
  const PlanResult open = run_plan(file, {}, {});
  REQUIRE(open.ranking.size() >= 4);
  // A deadline half-way between the fastest run and the slowest: the bound rejects some.
  const double fastest = open.candidates[open.ranking.front()].time_to_train_s;
  double slowest = 0;
  for (std::size_t i : open.ranking) slowest = std::max(slowest, open.candidates[i].time_to_train_s);
  const std::vector<std::string> deadline{"plan.deadline=" + std::to_string((fastest + slowest) / 2) + "s"};
  PlanOptions exhaustive;
  exhaustive.prune_by_bound = false;
  const PlanResult pruned = run_plan(file, deadline, {});
  const PlanResult full = run_plan(file, deadline, exhaustive);
  REQUIRE(pruned.candidates.size() == full.candidates.size());
  std::size_t by_bound = 0;
  for (std::size_t i = 0; i < pruned.candidates.size(); ++i) {
    CAPTURE(i);
    const Evaluated& p = pruned.candidates[i];
    const Evaluated& f = full.candidates[i];
    if (p.status == Status::kBoundMissesDeadline) {
      ++by_bound;
      CHECK_FALSE(p.simulated());
      CHECK(f.status == Status::kMissesDeadline);  // simulated, it misses too
      CHECK(p.reason.find("to train (its kernels alone)") != std::string::npos);
      continue;
    }
    CHECK(p.status == f.status);
    CHECK(p.step_s == f.step_s);
  }
  CHECK(by_bound > 0);
  CHECK(pruned.ranking == full.ranking);
  CHECK(full.as_written_rank == pruned.as_written_rank);
}

TEST_CASE("plan: the section's errors name the key") {
  auto error_of = [](const std::string& plan) {
    return fathom::test::load_error_key(write_scenario("bad.yaml", scenario_with(plan)));
  };
  CHECK(error_of("plan:\n  vary: {tpp: [1, 2]}\n") == "plan.vary.tpp");
  CHECK(error_of("plan:\n  vary: {tp: []}\n") == "plan.vary.tp");
  CHECK(error_of("plan:\n  vary: {nodes: {from: 8, to: 4}}\n") == "plan.vary.nodes.to");
  CHECK(error_of("plan:\n  vary: {}\n") == "plan.vary");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  objective: fastest\n") == "plan.objective");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  objective: [time, time]\n") == "plan.objective[1]");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  objective: []\n") == "plan.objective");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  deadline: soon\n") == "plan.deadline");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  budget: 5e6\n") == "plan.budget");
  CHECK(error_of("plan:\n  vary: {tp: [1]}\n  speed: 3\n") == "plan.speed");
  // A range expands, `to` included.
  const auto s = fathom::scenario::load_scenario(
      write_scenario("range.yaml", scenario_with("plan:\n  vary: {nodes: {from: 2, to: 8, step: 3}}\n")));
  CHECK(s.plan->vary[0].values == std::vector<std::string>{"2", "5", "8"});
}

TEST_CASE("planner: a whole run's checkpoint interval, tier and spares are axes, ranked by the run's time and cost") {
  const std::string file = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/plan-checkpoint-and-spares.yaml";
  fathom::plan::PlanOptions options;
  options.threads = 2;
  const fathom::plan::PlanResult r = fathom::plan::run_plan(file, {"workload.run.replications=4"}, options);
  REQUIRE(r.candidates.size() == 12);
  REQUIRE(r.ranking.size() == 12);
  // Each candidate's time to train is its whole run's mean, as fathom simulate reports it.
  for (const std::size_t i : {r.ranking.front(), r.ranking.back()}) {
    const fathom::plan::Evaluated& e = r.candidates[i];
    std::vector<std::string> sets = {"workload.run.replications=4"};
    for (std::size_t a = 0; a < r.axes.size(); ++a) {
      const std::string key = r.axes[a] == "checkpoint_interval" ? "workload.checkpoint.interval"
                              : r.axes[a] == "checkpoint_tier"   ? "workload.checkpoint.tier"
                                                                 : "failures.spares";
      sets.push_back(key + "=" + e.values[a]);
    }
    const fathom::report::TrainingReport t =
        fathom::report::evaluate_training(fathom::scenario::load_scenario(file, sets));
    REQUIRE(t.run.has_value());
    CHECK(e.time_to_train_s == doctest::Approx(t.run->wall_s.mean));
    CHECK(e.time_to_train_s > t.result.time_to_train_s);  // failures cost time
  }
  // Waiting a day for a repair is slower than a spare: every candidate without spares ranks below
  // every one with them.
  const auto spares_of = [&](std::size_t i) { return r.candidates[i].values[2]; };
  CHECK(spares_of(r.ranking.front()) == "32");
  CHECK(spares_of(r.ranking.back()) == "0");
}
