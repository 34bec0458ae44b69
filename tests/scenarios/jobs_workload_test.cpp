// `workload: {kind: jobs}`: the trace, its window, load and oversize policy, the scheduler and
// placement keys, and every mistake located at its key (or at the trace's line).
#include "scenarios/jobs_workload.hpp"

#include <doctest/doctest.h>

#include <string>

#include "tests/scenarios/scenario_files.hpp"

using namespace fathom;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

const std::string kLublin = std::string(FATHOM_SOURCE_DIR) + "/data/traces/rlscheduler-lublin256/lublin_256.swf";

// A cluster of `nodes` one-device nodes and a jobs workload whose trace section is `trace`
// (indented for the trace map) and whose other keys are `rest`.
std::string scenario_text(int nodes, const std::string& trace, const std::string& rest = "") {
  return "cluster:\n"
         "  nodes: " +
         std::to_string(nodes) +
         "\n"
         "  node: {gpus: 1, nics: 1}\n"
         "  fabric:\n"
         "    kind: fat-tree\n"
         "    radix: 64\n"
         "    links:\n"
         "      - {bandwidth: 100Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "workload:\n"
         "  kind: jobs\n"
         "  trace:\n" +
         trace + rest;
}

scenario::Scenario load(const std::string& text) {
  return scenario::load_scenario(write_scratch_file("jobs.yaml", text));
}

}  // namespace

TEST_CASE("jobs workload: defaults, a window, a load factor") {
  const scenario::Scenario all = load(scenario_text(256, "    file: " + kLublin + "\n    format: swf\n"));
  CHECK(all.workload == scenario::WorkloadKind::kJobs);
  const scenario::JobsWorkload& a = all.jobs;
  CHECK(a.jobs.size() == 10'000);
  CHECK(a.trace_jobs == 10'000);
  CHECK(a.scheduler.order == sched::QueueOrder::kFcfs);
  CHECK(a.scheduler.backfill == sched::Backfill::kEasy);
  CHECK(a.placement == place::PlacementPolicy::kFirstFit);
  CHECK(a.estimates == scenario::EstimateSource::kTrace);
  CHECK(a.without_estimate == 10'000);  // the Lublin log has no requested times
  CHECK(a.jobs.front().submit == sim::SimTime::zero());
  CHECK(a.window_offset == sim::SimTime::from_seconds(5094));  // SOURCES.md: first submit 5,094 s
  CHECK(a.logged_processors == 256);

  const scenario::Scenario window = load(
      scenario_text(256, "    file: " + kLublin + "\n    format: swf\n    first_job: 101\n    jobs: 50\n    load: 2\n",
                    "  estimates: exact\n  scheduler: {order: sjf, backfill: conservative}\n  placement: best-fit\n"));
  const scenario::JobsWorkload& w = window.jobs;
  REQUIRE(w.jobs.size() == 50);
  CHECK(w.jobs.front().id == a.jobs[100].id);
  CHECK(w.jobs.back().id == a.jobs[149].id);
  // Gaps halved: job k of the window arrives at (its trace time - the window's first) / 2.
  for (std::size_t k = 0; k < w.jobs.size(); ++k) {
    const std::int64_t gap = (a.jobs[100 + k].submit - a.jobs[100].submit).ns();
    CHECK(w.jobs[k].submit.ns() == gap / 2 + (gap % 2));  // rounded to the nearest ns, halves up
    CHECK(w.job_estimates[k] == w.jobs[k].run);
  }
  CHECK(w.scheduler.order == sched::QueueOrder::kSjf);
  CHECK(w.scheduler.backfill == sched::Backfill::kConservative);
  CHECK(w.placement == place::PlacementPolicy::kBestFit);
  CHECK(w.without_estimate == 0);
}

TEST_CASE("jobs workload: jobs larger than the cluster are refused at their line, or dropped and counted") {
  const auto e = load_error(scenario_text(64, "    file: " + kLublin + "\n    format: swf\n"));
  CHECK(e.file() == kLublin);
  CHECK(e.line() > 0);
  CHECK(e.expected() == "jobs of at most the cluster's 64 GPUs");
  CHECK(std::string(e.what()).find("oversize: drop") != std::string::npos);
  const scenario::Scenario s =
      load(scenario_text(64, "    file: " + kLublin + "\n    format: swf\n    oversize: drop\n"));
  REQUIRE(s.jobs.left_out.size() == 1);
  const auto& t = s.jobs.left_out.front();
  CHECK(t.reason == "larger than the cluster's 64 GPUs");
  CHECK(t.first.line == e.line());
  CHECK(static_cast<std::int64_t>(s.jobs.jobs.size()) + t.count == 10'000);
  for (const auto& j : s.jobs.jobs) REQUIRE(j.gpus <= 64);
}

TEST_CASE("jobs workload: every mistake is located at its key") {
  const std::string file = "    file: " + kLublin + "\n";
  struct Case {
    std::string trace, rest, key, expected_part;
  };
  const Case cases[] = {
      {file + "    format: swf\n    first_job: 10001\n", "", "workload.trace.first_job", "within the trace's 10000"},
      {file + "    format: swf\n    first_job: 9001\n    jobs: 1024\n", "", "workload.trace.jobs",
       "1000 from job 9001"},
      {file + "    format: swf\n    load: 0\n", "", "workload.trace.load", "positive"},
      {file + "    format: swf\n    load: -2\n", "", "workload.trace.load", "positive"},
      {file + "    format: swf\n    first_job: 0\n", "", "workload.trace.first_job", ""},
      {file + "    format: swf\n    member: all\n", "", "workload.trace.member", ""},
      {file + "    format: csv\n", "", "workload.trace.columns", ""},
      {file + "    format: parquet\n", "", "workload.trace.format", "swf"},
      {file + "    format: swf\n    oversize: shrink\n", "", "workload.trace.oversize", "drop"},
      {file + "    format: swf\n", "  scheduler: {backfill: aggressive}\n", "workload.scheduler.backfill", "easy"},
      {file + "    format: swf\n", "  scheduler: {oder: sjf}\n", "workload.scheduler.oder", ""},
      {file + "    format: swf\n", "  placement: worst-fit\n", "workload.placement", "best-fit"},
      {file + "    format: swf\n", "  estimates: guessed\n", "workload.estimates", "predicted"},
      {"    file: no-such-trace.swf\n    format: swf\n", "", "workload.trace.file", "no-such-trace.swf"},
      {file + "    format: swf\n", "  scheduler: {policy: fair}\n", "workload.scheduler.policy", "las"},
      {file + "    format: swf\n", "  scheduler: {policy: las, order: sjf}\n", "workload.scheduler.order",
       "policy: queue"},
      {file + "    format: swf\n", "  scheduler: {policy: gang, backfill: easy}\n", "workload.scheduler.backfill", ""},
      {file + "    format: swf\n", "  scheduler: {restart_overhead: 30s}\n", "workload.scheduler.restart_overhead",
       "preemptive"},
      {file + "    format: swf\n", "  scheduler: {policy: las, thresholds: [2h, 1h]}\n",
       "workload.scheduler.thresholds[1]", "ascending"},
      {file + "    format: swf\n", "  scheduler: {policy: las, quantum: 1min}\n", "workload.scheduler.quantum", "gang"},
      {file + "    format: swf\n", "  scheduler: {policy: gang, quantum: 0s}\n", "workload.scheduler.quantum", ""},
      {file + "    format: swf\n", "  scheduler: {policy: quota}\n", "workload.scheduler.teams", ""},
      {file + "    format: swf\n", "  scheduler: {policy: quota, teams: [{team: 1, gpus: 200}, {team: 2, gpus: 57}]}\n",
       "workload.scheduler.teams[1].gpus", "at most the cluster's 256"},
      {file + "    format: swf\n", "  scheduler: {policy: quota, teams: [{team: 1, gpus: 2}, {team: 1, gpus: 2}]}\n",
       "workload.scheduler.teams[1].team", "each team once"},
      {file + "    format: swf\n", "  scheduler: {teams: [{team: 1, gpus: 2}]}\n", "workload.scheduler.teams",
       "policy: quota"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.trace + c.rest);
    const auto e = load_error(scenario_text(256, c.trace, c.rest));
    CHECK(e.key_path() == c.key);
    CHECK(e.line() > 0);
    CHECK(std::string(e.what()).find(c.expected_part) != std::string::npos);
  }
}

TEST_CASE("jobs workload: the preemptive policies' keys") {
  const std::string trace = "    file: " + kLublin + "\n    format: swf\n";
  const scenario::Scenario las =
      load(scenario_text(256, trace, "  scheduler: {policy: las, thresholds: [1h, 10h], restart_overhead: 30s}\n"));
  CHECK(las.jobs.scheduler.policy == sched::Policy::kLas);
  CHECK(las.jobs.scheduler.las_thresholds_gpu_s == std::vector<double>{3600, 36000});
  CHECK(las.jobs.restart_overhead == sim::SimTime::from_seconds(30));
  const scenario::Scenario gang = load(scenario_text(256, trace, "  scheduler: {policy: gang, quantum: 5min}\n"));
  CHECK(gang.jobs.scheduler.quantum == sim::SimTime::from_seconds(300));
  const scenario::Scenario quota = load(scenario_text(
      256, trace, "  scheduler: {policy: quota, team_of: user, teams: [{team: 3, gpus: 64, priority: 2}]}\n"));
  REQUIRE(quota.jobs.scheduler.quotas.size() == 1);
  CHECK(quota.jobs.scheduler.quotas[0].team == 3);
  CHECK(quota.jobs.scheduler.quotas[0].gpus == 64);
  CHECK(quota.jobs.scheduler.quotas[0].priority == 2);
  CHECK(quota.jobs.team_from_user);
}

TEST_CASE("jobs workload: a CSV trace with the scenario's column names") {
  const std::string csv = write_scratch_file("jobs.csv",
                                             "name,arrive,secs,devices,who\n"
                                             "a,100,60,2,ann\n"
                                             "b,160,30,1,bob\n"
                                             "c,160,10,4,ann\n");
  const scenario::Scenario s = load(scenario_text(
      8, "    file: " + csv +
             "\n    format: csv\n    columns: {id: name, submit: arrive, run: secs, gpus: devices, user: who}\n"));
  const auto& w = s.jobs;
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[1].submit == sim::SimTime::from_seconds(60));
  CHECK(w.jobs[2].gpus == 4);
  CHECK(w.jobs[2].user == w.jobs[0].user);
  CHECK(w.without_estimate == 3);
  const auto e = load_error(
      scenario_text(8, "    file: " + csv + "\n    format: csv\n    columns: {submit: arrive, run: secs}\n"));
  CHECK(e.key_path() == "workload.trace.columns.gpus");
}

TEST_CASE("jobs workload: the packing experiment's keys") {
  const std::string folder = std::string(FATHOM_SOURCE_DIR) + "/data/traces/alibaba-gpu-v2023/";
  const std::string trace = "    file: " + folder +
                            "openb_pod_list_default.csv\n    format: alibaba\n    nodes: " + folder +
                            "openb_node_list_gpu_node.csv\n";
  const scenario::Scenario s = load(scenario_text(1213, trace, "  fill: 130%\n  placement: fgd\n"));
  const scenario::JobsWorkload& w = s.jobs;
  CHECK(w.is_packing());
  CHECK(w.fill == doctest::Approx(1.3));
  CHECK(w.share_policy == place::SharePolicy::kFgd);
  CHECK(w.share_tasks.size() == 8'152);
  CHECK(w.share_nodes.nodes.size() == 1'213);
  CHECK(load(scenario_text(1213, trace, "  fill: 0.5\n")).jobs.fill == 0.5);
  struct Case {
    std::string trace, rest, key, expected_part;
  };
  const Case cases[] = {
      {trace, "", "workload.fill", "such as 130%"},
      {trace, "  fill: -10%\n", "workload.fill", "positive share"},
      {trace, "  fill: lots\n", "workload.fill", "positive share"},
      {trace + "    jobs: 100\n", "  fill: 130%\n", "workload.trace.jobs", "not with format: alibaba"},
      {trace, "  fill: 130%\n  scheduler: {backfill: easy}\n", "workload.scheduler", "not with format: alibaba"},
      {trace, "  fill: 130%\n  placement: tetris\n", "workload.placement", "fgd"},
      {"    file: " + folder + "openb_pod_list_default.csv\n    format: alibaba\n", "  fill: 130%\n",
       "workload.trace.nodes", "node list"},
      {"    file: " + kLublin + "\n    format: swf\n", "  fill: 130%\n", "workload.fill", "only with format: alibaba"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.trace + c.rest);
    const auto e = load_error(scenario_text(1213, c.trace, c.rest));
    CHECK(e.key_path() == c.key);
    CHECK(std::string(e.what()).find(c.expected_part) != std::string::npos);
  }
  const auto e = load_error(scenario_text(64, trace, "  fill: 130%\n"));
  CHECK(e.key_path() == "workload.trace.nodes");
  CHECK(e.expected() == "a node list of the cluster's 64 nodes");
}

TEST_CASE("jobs workload: a synthetic trace and a resampled one") {
  const std::string synthetic =
      "    format: synthetic\n    jobs: 1000\n    interarrival: {distribution: exponential, mean: 2min}\n"
      "    gpus: {values: [1, 8], weights: [0.9, 0.1]}\n    run: {distribution: log-uniform, min: 1min, max: 1d}\n";
  const scenario::Scenario s = load(scenario_text(16, synthetic, "  estimates: exact\n"));
  const scenario::JobsWorkload& w = s.jobs;
  REQUIRE(w.jobs.size() == 1000);
  CHECK(w.jobs.front().submit == sim::SimTime::zero());
  for (const auto& j : w.jobs) REQUIRE((j.gpus == 1 || j.gpus == 8));
  CHECK(w.generator.interarrival_s.a == 120);
  CHECK(w.generator.run_s.b == 86400);
  // The seed draws the trace: the same seed, the same jobs; another, others.
  const scenario::Scenario again = load(scenario_text(16, synthetic, "  estimates: exact\n"));
  CHECK(again.jobs.jobs.back().submit == w.jobs.back().submit);
  const scenario::Scenario other = load("seed: 2\n" + scenario_text(16, synthetic, "  estimates: exact\n"));
  CHECK(other.jobs.jobs.back().submit != w.jobs.back().submit);
  const scenario::Scenario fixed = load(
      scenario_text(16, "    format: synthetic\n    jobs: 10\n    interarrival: 1min\n    gpus: 2\n    run: 1h\n"));
  CHECK(fixed.jobs.jobs[3].submit == sim::SimTime::from_seconds(180));
  CHECK(fixed.jobs.jobs[3].run == sim::SimTime::from_seconds(3600));

  const scenario::Scenario r =
      load(scenario_text(256, "    file: " + kLublin + "\n    format: swf\n    jobs: 100\n    resample: 5000\n"));
  CHECK(r.jobs.jobs.size() == 5000);
  CHECK(r.jobs.resample == 5000);

  struct Case {
    std::string trace, key, expected_part;
  };
  const Case cases[] = {
      {"    format: synthetic\n    interarrival: 1min\n    gpus: 1\n    run: 1h\n", "workload.trace.jobs", ""},
      {"    format: synthetic\n    jobs: 5\n    gpus: 1\n    run: 1h\n", "workload.trace.interarrival", "duration"},
      {"    format: synthetic\n    jobs: 5\n    interarrival: 1min\n    gpus: 1\n    run: {distribution: uniform, min: "
       "2h, max: 1h}\n",
       "workload.trace.run", "min < max"},
      {"    format: synthetic\n    jobs: 5\n    interarrival: 1min\n    gpus: {values: [1, 2], weights: [1]}\n    run: "
       "1h\n",
       "workload.trace.gpus", "as many weights as values"},
      {"    format: synthetic\n    jobs: 5\n    interarrival: {distribution: zipf}\n    gpus: 1\n    run: 1h\n",
       "workload.trace.interarrival.distribution", "exponential"},
      {"    format: synthetic\n    file: x.swf\n    jobs: 5\n    interarrival: 1min\n    gpus: 1\n    run: 1h\n",
       "workload.trace.file", "not with format: synthetic"},
      {"    format: synthetic\n    first_job: 2\n    jobs: 5\n    interarrival: 1min\n    gpus: 1\n    run: 1h\n",
       "workload.trace.first_job", "not with format: synthetic"},
      {"    file: " + kLublin + "\n    format: swf\n    run: 1h\n", "workload.trace.run",
       "only with format: synthetic"},
      {"    format: synthetic\n    jobs: 5\n    interarrival: 1min\n    gpus: 300\n    run: 1h\n",
       "workload.trace.gpus", "at most the cluster's 256 GPUs"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.trace);
    const auto e = load_error(scenario_text(256, c.trace));
    CHECK(e.key_path() == c.key);
    CHECK(std::string(e.what()).find(c.expected_part) != std::string::npos);
  }
}
