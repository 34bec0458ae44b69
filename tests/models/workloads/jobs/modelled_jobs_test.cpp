// Modelled training jobs beside each other: the fabric's ring rates (FabricShare) against the
// max-min closed form on an oversubscribed leaf, the step's stretch (ModelledStep) against its
// formula, the job cluster's piecewise progress when a neighbour starts and ends, and the
// example scenario: two jobs sharing spine links run slower than alone, by what the flow model
// says, and topology-aware placement recovers it.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "models/workloads/jobs/fabric_share.hpp"
#include "models/workloads/jobs/job_cluster.hpp"
#include "models/workloads/jobs/training_job.hpp"
#include "report/jobs/jobs_report.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"
#include "sim/time.hpp"
#include "topologies/cluster.hpp"

using namespace fathom;

namespace {

const std::string kExample = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/two-jobs-spine-sharing.yaml";
constexpr double kNic = 400e9 / 8;  // the example's 400 Gb/s NICs, bytes/s

// The example's cluster: 12 DGX H100 nodes on 3 leaves of 4, 8 x 400 Gb/s up per leaf (4:1),
// adaptive routing.
topo::Topology example_topology() { return topo::build_cluster(scenario::load_scenario(kExample).cluster); }

report::JobsReport run_example(std::vector<std::string> overrides = {}) {
  return report::evaluate_jobs(scenario::load_scenario(kExample, overrides));
}

}  // namespace

TEST_CASE("FabricShare: ring rates on a 4:1 leaf are the max-min closed form") {
  const topo::Topology topology = example_topology();
  jobs::FabricShare fabric(topology, 1);
  using Nodes = std::vector<std::vector<std::int32_t>>;
  // Inside one leaf every ring hop is NIC to leaf to NIC: the NIC's rate.
  CHECK(fabric.ring_rates(Nodes{{0, 1, 2, 3}}).front() == doctest::Approx(kNic).epsilon(1e-12));
  // Across two leaves, alone: 8 flows (one per rail) up each leaf's 8 uplinks: still the NIC's.
  CHECK(fabric.ring_rates(Nodes{{0, 1, 4, 5}}).front() == doctest::Approx(kNic).epsilon(1e-12));
  CHECK(fabric.last_flows() == 4 * 8);
  // Beside a ring on leaves 1 and 2: leaf 1's 8 uplinks (and downlinks) carry 16 flows: half.
  const std::vector<double> both = fabric.ring_rates(Nodes{{0, 1, 4, 5}, {6, 7, 8, 9}});
  CHECK(both[0] == doctest::Approx(kNic / 2).epsilon(1e-12));
  CHECK(both[1] == doctest::Approx(kNic / 2).epsilon(1e-12));
  // Rings on leaves 0 and 2 use different leaves' uplinks... and both cross the spines, which
  // have room (2 spines x 12 links): no slowdown.
  const std::vector<double> apart = fabric.ring_rates(Nodes{{0, 1, 8, 9}, {4, 5, 6, 7}});
  CHECK(apart[0] == doctest::Approx(kNic).epsilon(1e-12));
  CHECK(apart[1] == doctest::Approx(kNic).epsilon(1e-12));
  // One node sends nothing over the fabric.
  CHECK(std::isinf(fabric.ring_rates(Nodes{{4}}).front()));
  CHECK_THROWS_AS(fabric.ring_rates(Nodes{{1, 0}}), std::invalid_argument);
  CHECK_THROWS_AS(fabric.ring_rates(Nodes{{0, 0}}), std::invalid_argument);
}

TEST_CASE("ModelledStep: the reduction's stretch reaches the step only past its slack") {
  // 1 s step; a 0.3 s reduction that ends 0.1 s before the pipeline; 0.05 s of exposed gathers.
  const jobs::ModelledStep slack{1.0, 0.3, -0.1, 0.05, 10};
  CHECK(slack.step_under(1.0) == doctest::Approx(1.0));
  CHECK(slack.step_under(1.2) == doctest::Approx(1.0 + 0.2 * 0.05));  // 0.06 of slack used
  CHECK(slack.step_under(2.0) == doctest::Approx(1.0 + 0.2 + 0.05));  // 0.3 - 0.1 past it
  const jobs::ModelledStep overhang{1.0, 0.3, 0.1, 0.0, 10};          // already 0.1 s exposed
  CHECK(overhang.step_under(2.0) == doctest::Approx(1.0 + 0.3));      // all of the stretch
  CHECK(overhang.step_under(0.5) == doctest::Approx(1.0 - 0.1));      // a faster ring hides it
}

TEST_CASE("Job cluster: a modelled job's step time changes when its neighbour starts and ends") {
  const topo::Topology topology = example_topology();
  jobs::FabricShare fabric(topology, 1);
  using sim::SimTime;
  auto job = [](std::int64_t id, double submit_s, std::int32_t gpus, double run_s) {
    jobs::TraceJob j;
    j.id = id;
    j.submit = SimTime::from_seconds(submit_s);
    j.gpus = gpus;
    j.run = SimTime::from_seconds(run_s);
    return j;
  };
  // Two opaque jobs leave nodes 0-1 free at 100 s and hold 2-3; then two modelled jobs of 4
  // nodes: first-fit gives them 0, 1, 4, 5 and 6 to 9, sharing leaf 1's uplinks.
  const std::vector<jobs::TraceJob> trace{job(1, 0, 16, 100), job(2, 0, 16, 10000), job(3, 200, 32, 1000),
                                          job(4, 200, 32, 400)};
  std::vector<SimTime> estimates;
  for (const auto& j : trace) estimates.push_back(j.run);
  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(12, 8);
  for (int n = 0; n < 12; ++n) spec.leaf_of_node.push_back(n / 4);
  spec.scheduler.check_reservations = true;
  // 1 s steps alone, whose 0.5 s reduction ends with the pipeline: at half rate, 1.5 s.
  spec.modelled = {{}, {}, {1.0, 0.5, 0.0, 0.0, 1000}, {1.0, 0.5, 0.0, 0.0, 400}};
  spec.reference_rate = {0, 0, kNic, kNic};
  spec.fabric = &fabric;

  SUBCASE("first-fit: both slowed while both run") {
    const jobs::JobClusterRun run = jobs::run_job_cluster(trace, estimates, spec, 1);
    CHECK(run.jobs[2].leaves == 2);
    CHECK(run.jobs[3].leaves == 2);
    // Job 4: 400 steps at 1.5 s from 200 s. Job 3: 400 steps at 1.5 s, then 600 at 1 s.
    CHECK(std::llabs((run.jobs[3].end - SimTime::from_seconds(800)).ns()) <= 1);
    CHECK(std::llabs((run.jobs[2].end - SimTime::from_seconds(1400)).ns()) <= 2);
    CHECK(run.jobs[3].interference == doctest::Approx(1.5));
    CHECK(run.jobs[2].interference == doctest::Approx(1.2));
    REQUIRE(run.step_changes.size() == 3);
    CHECK(run.step_changes[0].slowdown == doctest::Approx(2.0));
    CHECK(run.step_changes[0].step_s == doctest::Approx(1.5));
    CHECK(run.step_changes[2].job == 2);
    CHECK(run.step_changes[2].at == run.jobs[3].end);
    CHECK(run.step_changes[2].step_s == doctest::Approx(1.0));
    CHECK(run.jobs[0].interference == 1.0);  // opaque
  }
  SUBCASE("topology-aware: a leaf each, no slowdown") {
    spec.placement = place::PlacementPolicy::kTopologyAware;
    const jobs::JobClusterRun run = jobs::run_job_cluster(trace, estimates, spec, 1);
    CHECK(run.jobs[2].leaves == 1);
    CHECK(run.jobs[3].leaves == 1);
    CHECK(run.jobs[2].end == SimTime::from_seconds(1200));
    CHECK(run.jobs[3].end == SimTime::from_seconds(600));
  }
  SUBCASE("a modelled list must match the jobs") {
    spec.modelled.pop_back();
    CHECK_THROWS_AS(jobs::run_job_cluster(trace, estimates, spec, 1), std::invalid_argument);
  }
}

TEST_CASE("Example: two jobs sharing spine links run slower than alone; topology-aware recovers it") {
  const report::JobsReport shared = run_example();
  REQUIRE(shared.scenario.jobs.training.size() == 4);
  const jobs::ModelledStep& a = shared.modelled[2];
  // The flow model halves a's and b's rings (the closed form above): the step is its formula at 2.
  const double expected = a.step_under(2.0) / a.step_s;
  MESSAGE("step alone " << a.step_s << " s, reduction " << a.reduce_s << " s, overhang " << a.overhang_s
                        << " s; beside b: x" << shared.run.jobs[2].interference);
  CHECK(expected > 1.3);  // the strategy reduces 8B gradients every 0.33 s step
  CHECK(shared.run.jobs[2].interference == doctest::Approx(expected).epsilon(1e-6));
  CHECK(shared.run.jobs[3].interference == doctest::Approx(expected).epsilon(1e-6));
  CHECK(shared.run.jobs[2].leaves == 2);
  // x and y share no link with anyone: their run is their run alone.
  CHECK(shared.run.jobs[0].interference == 1.0);
  CHECK(shared.run.jobs[1].interference == 1.0);

  // Alone (b submitted after a has ended), a straddles the same two leaves at full speed.
  const report::JobsReport alone = run_example({"workload.training_jobs[3].submit=5h"});
  CHECK(alone.run.jobs[2].leaves == 2);
  CHECK(alone.run.jobs[2].interference == 1.0);

  const report::JobsReport aware = run_example({"workload.placement=topology-aware"});
  CHECK(aware.run.jobs[2].leaves == 1);
  CHECK(aware.run.jobs[3].leaves == 1);
  CHECK(aware.run.jobs[2].interference == 1.0);
  CHECK(aware.run.jobs[3].interference == 1.0);
  CHECK(aware.summary.mean_jct_s < shared.summary.mean_jct_s);
}

TEST_CASE("Example: the same run, byte for byte, twice") {
  const report::JobsReport one = run_example(), two = run_example();
  CHECK(one.run.fingerprint == two.run.fingerprint);
  for (std::size_t i = 0; i < one.run.jobs.size(); ++i) CHECK(one.run.jobs[i].end == two.run.jobs[i].end);
}

TEST_CASE("training_jobs: bad input gets a located error") {
  const auto fails_at = [](const std::vector<std::string>& overrides, const std::string& key) {
    try {
      report::evaluate_jobs(scenario::load_scenario(kExample, overrides));
    } catch (const scenario::ScenarioError& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(what.find(key) != std::string::npos);
      return;
    }
    FAIL("no error for " << overrides.front());
  };
  fails_at({"workload.training_jobs[1].submit=-1s"}, "workload.training_jobs[1].submit");
  fails_at({"workload.training_jobs[3].submit=1min"}, "workload.training_jobs[3].submit");  // before a's 30 min
  fails_at({"workload.training_jobs[0].tokens=1e9"}, "workload.training_jobs[0].steps");    // both lengths
  fails_at({"workload.training_jobs[0].steps=0"}, "workload.training_jobs[0].steps");
  fails_at({"workload.training_jobs[0].gpus=200"}, "workload.training_jobs[0].gpus");  // more than the cluster's
  fails_at({"workload.training_jobs[0].parallel.tp=3"}, "workload.training_jobs[0]");
  fails_at({"workload.training_jobs[2].model=llama3-70b"}, "workload.training_jobs[2]");  // does not fit in HBM
  fails_at({"workload.estimates=exact"}, "workload.estimates");
  fails_at({"workload.trace.format=swf"}, "workload.trace");
}

TEST_CASE("Job cluster: a preempted modelled job keeps its steps and pays its restart") {
  // The example's a and b widened to 8 nodes each, under gang scheduling: with y holding 2 of the
  // 12 nodes only one fits at a time, so they take turns in 5 min slices, each paying 20 s per
  // restart. Each runs alone on its nodes whenever it runs (its 8 ring flows per leaf fill the
  // 8 uplinks exactly), so its runs add up to its run alone and its restarts.
  const report::JobsReport r =
      run_example({"workload.scheduler={policy: gang, quantum: 5min, restart_overhead: 20s}",
                   "workload.training_jobs[2].gpus=64", "workload.training_jobs[2].global_batch=64",
                   "workload.training_jobs[3].gpus=64", "workload.training_jobs[3].global_batch=64"});
  for (const std::size_t i : {std::size_t{2}, std::size_t{3}}) {
    CAPTURE(i);
    const jobs::JobRun& j = r.run.jobs[i];
    CHECK(j.preemptions > 0);
    const double alone = r.scenario.jobs.jobs[i].run.to_seconds() + 20.0 * j.preemptions;
    CHECK(j.executed.to_seconds() == doctest::Approx(alone).epsilon(1e-9));
    CHECK(j.interference == doctest::Approx(1.0).epsilon(1e-9));
  }
}
