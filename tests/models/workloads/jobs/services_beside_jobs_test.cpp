// The shared cluster's scenario (scenarios/examples/training-beside-inference.yaml): its keys, the
// located errors of what it refuses, the jobs' accounts of their preemptions, and the service
// with every GPU it asks for behaving exactly as the same service alone.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/inference/inference_report.hpp"
#include "report/jobs/jobs_report.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

const std::string kShared = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/training-beside-inference.yaml";
// The same service alone: llama3-8b-autoscaling.yaml holds the keys the shared example's service copies.
const std::string kAlone = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/llama3-8b-autoscaling.yaml";
const std::string kTwoJobs = std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/two-jobs-spine-sharing.yaml";

// The key path of the error `overrides` on `file` give, or "(loaded)".
std::string error_key(const std::string& file, const std::vector<std::string>& overrides) {
  try {
    scenario::load_scenario(file, overrides);
  } catch (const scenario::ScenarioError& e) {
    return e.key_path();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("services beside jobs: the example's keys") {
  const scenario::Scenario s = scenario::load_scenario(kShared);
  REQUIRE(s.jobs.services.size() == 1);
  CHECK(s.jobs.services[0].name == "chat");
  CHECK(s.jobs.services[0].priority == 1);
  CHECK(s.jobs.services[0].workload.serving.replicas == 2);
  CHECK(s.jobs.services[0].workload.autoscaler.max_replicas == 16);
  CHECK(s.jobs.checkpoint_tier == "models");
  CHECK(s.jobs.restart_overhead == sim::SimTime::from_seconds(300));
  CHECK(s.jobs.training_priority == std::vector<int>{2, 0});
  CHECK(s.jobs.training_min_gpus == std::vector<std::int32_t>{0, 4});
}

TEST_CASE("services beside jobs: what the loader refuses, each at its key") {
  CHECK(error_key(kShared, {"workload.scheduler.policy=las"}) == "workload.scheduler.policy");
  CHECK(error_key(kShared, {"workload.services[0].priority=high"}) == "workload.services[0].priority");
  CHECK(error_key(kShared, {"workload.services[0].disaggregation={prefill_replicas: 1}"}) ==
        "workload.services[0].disaggregation");
  CHECK(error_key(kShared, {"workload.services=[]"}) == "workload.services");
  CHECK(error_key(kShared, {"workload.services[0].serving.tp=16"}).rfind("workload.services[0]", 0) == 0);
  CHECK(error_key(kShared, {"workload.services[0].colour=red"}) == "workload.services[0].colour");
  CHECK(error_key(kShared, {"workload.training_jobs[0].priority=1.5"}) == "workload.training_jobs[0].priority");
  CHECK(error_key(kShared, {"workload.services[0].slo.tpot=50"}) == "workload.services[0].slo.tpot");
  CHECK(error_key(kShared, {"workload.scheduler.checkpoint_tier=scratch"}) == "workload.scheduler.checkpoint_tier");
  // A job a service preempts writes its checkpoint: without services nothing does.
  CHECK(error_key(kTwoJobs, {"workload.scheduler.checkpoint_save=1min"}) == "workload.scheduler.checkpoint_save");
  CHECK(error_key(kTwoJobs, {"workload.training_jobs[0].min_gpus=8"}) == "workload.training_jobs[0].min_gpus");
  CHECK(error_key(kTwoJobs, {"workload.scheduler.checkpoint_tier=models"}) == "workload.scheduler.checkpoint_tier");
  CHECK(error_key(kShared, {"workload.training_jobs[1].min_gpus=9"}) == "workload.training_jobs[1].min_gpus");
  CHECK(error_key(kShared, {"workload.training_jobs[1].min_gpus=0"}) == "workload.training_jobs[1].min_gpus");
}

TEST_CASE("services beside jobs: each preemption costs its job the checkpoint's write and the restart") {
  // The fine-tuning job not elastic (its minimum its own GPUs): every claim that needs it stops it.
  const report::JobsReport r =
      report::evaluate_jobs(scenario::load_scenario(kShared, {"workload.training_jobs[1].min_gpus=8"}));
  REQUIRE(r.services.size() == 1);
  const report::ServiceClaims claims = report::service_claims(r.run, 0);
  CHECK(r.run.preemptions > 0);
  CHECK(static_cast<std::uint64_t>(claims.victims) == r.run.preemptions);
  // A claim that preempts waits for the checkpoint's write, timed on the tier from its size.
  REQUIRE(r.checkpoints.size() == 2);
  CHECK(r.checkpoints[1].bytes == doctest::Approx(14.0 * 8.03e9).epsilon(0.01));  // 14 bytes a parameter
  CHECK(claims.max_wait_s == doctest::Approx(r.checkpoints[1].write_s).epsilon(1e-6));
  for (std::size_t j = 0; j < r.run.jobs.size(); ++j) {
    const jobs::JobRun& run = r.run.jobs[j];
    CAPTURE(j);
    // The pretraining job (priority 2) outranks the service: never preempted.
    if (j == 0) CHECK(run.preemptions == 0);
    // Held GPU time: its run alone, and per preemption the checkpoint's write, its read and the
    // rest of the restart (300 s).
    const double alone = r.modelled[j].step_s * static_cast<double>(r.modelled[j].steps);
    const report::JobsReport::Checkpoint& c = r.checkpoints[j];
    const double expected = alone + run.preemptions * (c.write_s + c.restore_s + 300.0);
    CHECK(run.executed.to_seconds() == doctest::Approx(expected).epsilon(1e-9));
  }
  for (const infer::RequestOutcome& o : r.services[0].run.requests) CHECK(o.finished());
  // The service leaves when its last request ends: its GPUs all go back.
  CHECK(r.run.timeline.back().service_gpus == 0);
}

TEST_CASE("services beside jobs: the elastic job shrinks to the training model's step at its new width") {
  const report::JobsReport r = report::evaluate_jobs(scenario::load_scenario(kShared));
  CHECK(r.run.shrinks > 0);
  CHECK(r.run.jobs[1].shrinks == r.run.shrinks);
  // The same job asked for four GPUs from the start: its step alone there.
  const report::JobsReport four =
      report::evaluate_jobs(scenario::load_scenario(kShared, {"workload.training_jobs[1].gpus=4"}));
  const double step_at_four = four.modelled[1].step_s;
  CHECK(step_at_four > r.modelled[1].step_s);
  int at_four = 0;
  for (const jobs::StepChange& c : r.run.step_changes) {
    if (c.job != 1) continue;
    const bool full = c.step_s == r.modelled[1].step_s;
    CHECK((full || c.step_s == step_at_four));
    at_four += full ? 0 : 1;
  }
  CHECK(at_four == static_cast<int>(r.run.shrinks));
  CHECK(r.run.timeline.back().busy_gpus == 0);
}

TEST_CASE("services beside jobs: a job that shares the fabric writes its checkpoint while its neighbours change") {
  // two-jobs-spine-sharing.yaml's jobs x and y (two nodes each, their rings sharing spine links)
  // and a burst on a service of whole-node replicas: at the first sync (15 s) its claims take the
  // free nodes and preempt y, which writes its checkpoint for 10 minutes. x ends meanwhile (67 s):
  // the fabric is re-shared, which must leave y's checkpoint alone: y frees its GPUs at 615 s and
  // waits, its claim already withdrawn (the burst is over), then starts again at once.
  const std::string service =
      "workload.services=[{name: burst, model: llama3.1-8b, serving: {tp: 8, replicas: 1}, requests: {arrival: "
      "all-at-once, count: 2000, prompt_tokens: 512, output_tokens: 512}, autoscaler: {metric: outstanding, target: "
      "10, min_replicas: 1, max_replicas: 9, startup: 10s}}]";
  const report::JobsReport r =
      report::evaluate_jobs(scenario::load_scenario(kTwoJobs, {service, "workload.scheduler.checkpoint_save=10min"}));
  REQUIRE(r.run.preemptions == 1);
  REQUIRE(r.run.earlier_runs.size() == 1);
  const jobs::JobSegment& y = r.run.earlier_runs[0];
  CHECK(r.scenario.jobs.training[y.job].name == "y");
  CHECK(y.end == sim::SimTime::from_seconds(615));
  CHECK(r.run.jobs[y.job].last_start == sim::SimTime::from_seconds(615));
  CHECK(r.run.jobs[0].end < sim::SimTime::from_seconds(615));  // x ended during y's checkpoint
  CHECK(report::service_claims(r.run, 0).granted == report::service_claims(r.run, 0).claims - 1);
}

TEST_CASE("services beside jobs: a service every GPU it asks for is free for runs exactly as alone") {
  // Eight nodes: the jobs' 24 GPUs and the service's 16 at most leave GPUs free throughout.
  const report::JobsReport shared =
      report::evaluate_jobs(scenario::load_scenario(kShared, {"cluster.nodes=8", "cluster.fabric.hosts_per_leaf=64"}));
  const report::InferenceReport alone = report::evaluate_inference(scenario::load_scenario(kAlone));
  REQUIRE(shared.services.size() == 1);
  const report::InferenceReport& s = shared.services[0];
  CHECK(shared.run.preemptions == 0);
  CHECK(report::service_claims(shared.run, 0).max_wait_s == 0);
  REQUIRE(s.run.requests.size() == alone.run.requests.size());
  for (std::size_t i = 0; i < s.run.requests.size(); ++i) {
    CHECK(s.run.requests[i].first_token == alone.run.requests[i].first_token);
    CHECK(s.run.requests[i].end == alone.run.requests[i].end);
  }
  CHECK(s.metrics.ttft_s.p99 == alone.metrics.ttft_s.p99);
  // Its GPU-hours end when it leaves, at its last request's end; alone, the run goes on to the
  // autoscaler's last sync, at most one sync period (15 s) of its at most 16 replicas later.
  CHECK(s.gpu_hours <= alone.gpu_hours);
  CHECK(s.gpu_hours >= alone.gpu_hours - 16 * 15.0 / 3600);
  // Its replica counts, but for the last (the service leaving the cluster).
  REQUIRE(s.run.replica_counts.size() == alone.run.replica_counts.size() + 1);
  for (std::size_t k = 0; k < alone.run.replica_counts.size(); ++k) {
    CHECK(s.run.replica_counts[k].time == alone.run.replica_counts[k].time);
    CHECK(s.run.replica_counts[k].ready == alone.run.replica_counts[k].ready);
  }
}
