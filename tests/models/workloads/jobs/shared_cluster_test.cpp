// Training beside inference on one cluster (jobs/shared_cluster.hpp): a service's autoscaler
// claims GPUs for the replicas it adds; a claim no free GPUs hold preempts jobs of lower priority,
// which checkpoint on their GPUs first and resume, paying their restart, once GPUs free again.
// The times below follow from the protocol alone (gpu_claims.hpp), written out by hand.
#include "models/workloads/jobs/shared_cluster.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "models/placement/replica_placement.hpp"
#include "models/workloads/jobs/claim_victims.hpp"
#include "tests/models/workloads/inference/serving_fixtures.hpp"

using namespace fathom;

namespace {

sim::SimTime seconds(double s) { return sim::SimTime::from_ns(static_cast<std::int64_t>(s * 1e9)); }

jobs::TraceJob job(std::int64_t id, sim::SimTime submit, std::int32_t gpus, sim::SimTime run) {
  jobs::TraceJob j;
  j.id = id;
  j.submit = submit;
  j.gpus = gpus;
  j.run = run;
  return j;
}

// Three nodes of eight GPUs, FCFS with EASY backfilling; a preempted job checkpoints for 60 s and
// restarts in 120 s.
jobs::JobClusterSpec three_nodes() {
  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(3, 8);
  spec.leaf_of_node.assign(3, 0);
  spec.checkpoint_save = seconds(60);
  spec.restart_overhead = seconds(120);
  return spec;
}

// One replica of eight GPUs ready at time 0, up to two, scaling on outstanding requests: a burst
// of 40 at time 0 makes the first sync (15 s) ask for two.
infer::ServiceSpec one_to_two() {
  infer::ServiceSpec spec;
  spec.serving.replicas = 1;
  spec.serving.max_seqs = 4;
  spec.serving.routing = infer::Routing::kLeastOutstanding;
  spec.kv_blocks = 100000;
  infer::AutoscalerSpec& a = spec.autoscaler;
  a.enabled = true;
  a.metric = infer::ScaleMetric::kOutstanding;
  a.target = 10;
  a.min_replicas = 1;
  a.max_replicas = 2;
  a.startup = seconds(10);
  a.load = {seconds(5), seconds(6)};
  return spec;
}

struct Fixture {
  std::vector<infer::Request> requests = std::vector<infer::Request>(40, {sim::SimTime::zero(), 200, 2000});
  infer::ServiceSpec spec = one_to_two();
  infer::IterationModel model{spec.serving, test::small_model(), test::slow_accelerator(), nullptr};

  jobs::SharedClusterRun run(const std::vector<jobs::TraceJob>& trace, jobs::JobClusterSpec cluster, int priority = 1,
                             const sim::RunOptions& options = {}) const {
    std::vector<sim::SimTime> estimates;
    for (const jobs::TraceJob& j : trace) estimates.push_back(j.run);
    const jobs::SharedService service{requests, spec, &model, priority, 8};
    return jobs::run_shared_cluster(trace, estimates, std::move(cluster),
                                    std::span<const jobs::SharedService>(&service, 1), 1, options);
  }
};

sim::SimTime last_end(const infer::ServiceRun& run) {
  sim::SimTime end = sim::SimTime::zero();
  for (const auto& o : run.requests) end = std::max(end, o.end);
  return end;
}

}  // namespace

TEST_CASE("a replica that needs a training job's GPUs preempts it: checkpoint, replica, resume") {
  const Fixture f;
  // The initial replica takes node 0; the job (16 GPUs, 1000 s) nodes 1 and 2.
  const std::vector<jobs::TraceJob> trace{job(1, sim::SimTime::zero(), 16, seconds(1000))};
  const jobs::SharedClusterRun run = f.run(trace, three_nodes());
  const jobs::JobClusterRun& c = run.jobs;
  REQUIRE(c.claims.size() == 2);
  CHECK(c.claims[0].granted == sim::SimTime::zero());  // the initial replica
  // The first sync (15 s) claims the second replica's eight GPUs: none free, so the job stops and
  // writes its checkpoint for 60 s on its GPUs; they are the replica's at 75 s.
  CHECK(c.claims[1].asked == seconds(15));
  CHECK(c.claims[1].victims == 1);
  CHECK(c.claims[1].granted == seconds(75));
  REQUIRE(c.earlier_runs.size() == 1);
  CHECK(c.earlier_runs[0].start == sim::SimTime::zero());
  CHECK(c.earlier_runs[0].end == seconds(75));
  CHECK(c.preemptions == 1);
  // The replica is ready after its start-up (10 s) and the model's load (5 s, one replica).
  const infer::ServiceRun& s = run.services[0];
  bool ready_at_90 = false;
  for (const auto& n : s.replica_counts) {
    if (n.time == seconds(15)) CHECK(n.waiting == 1);
    if (n.time == seconds(75)) CHECK(n.starting == 1);
    if (n.time == seconds(90)) ready_at_90 = n.ready == 2;
  }
  CHECK(ready_at_90);
  // The job resumes when 16 GPUs are free: when the service leaves, at its last request's end;
  // it then pays its restart and runs the 985 s of work it had left.
  const jobs::JobRun& r = c.jobs[0];
  CHECK(c.claims[1].released == last_end(s));
  CHECK(r.last_start == last_end(s));
  CHECK(r.end == r.last_start + seconds(120) + seconds(985));
  CHECK(s.end == last_end(s));
  for (const auto& o : s.requests) CHECK(o.finished());
  // The timeline counts the service's GPUs apart from the jobs'.
  for (const jobs::ClusterSample& x : c.timeline) CHECK(x.busy_gpus + x.service_gpus <= 24);
}

TEST_CASE("a job of the service's priority or above is never preempted: the claim waits for its end") {
  Fixture f;
  f.requests.assign(40, {sim::SimTime::zero(), 200, 8000});  // a burst that outlasts the job
  const std::vector<jobs::TraceJob> trace{job(1, sim::SimTime::zero(), 16, seconds(300))};
  jobs::JobClusterSpec cluster = three_nodes();
  cluster.priority = {1};
  const jobs::SharedClusterRun run = f.run(trace, cluster, 1);
  const jobs::JobClusterRun& c = run.jobs;
  REQUIRE(c.claims.size() == 2);
  CHECK(c.preemptions == 0);
  CHECK(c.claims[1].victims == 0);
  CHECK(c.jobs[0].end == seconds(300));
  CHECK(c.claims[1].granted == seconds(300));
}

TEST_CASE("a claim still waiting when the service's last request ends is withdrawn") {
  Fixture f;
  f.requests.assign(40, {sim::SimTime::zero(), 200, 2000});
  const std::vector<jobs::TraceJob> trace{job(1, sim::SimTime::zero(), 16, seconds(100000))};
  jobs::JobClusterSpec cluster = three_nodes();
  cluster.priority = {5};
  const jobs::SharedClusterRun run = f.run(trace, cluster, 1);
  const jobs::JobClusterRun& c = run.jobs;
  REQUIRE(c.claims.size() == 2);
  CHECK(c.claims[1].granted < sim::SimTime::zero());
  CHECK(c.claims[0].released == last_end(run.services[0]));
  CHECK(c.jobs[0].end == seconds(100000));
  for (const auto& n : run.services[0].replica_counts) CHECK(n.ready + n.starting + n.draining <= 1);
}

TEST_CASE("a shared cluster's run is the same on one thread or four") {
  Fixture f;
  f.spec.dispatch_delay = sim::SimTime::from_ns(100'000);
  const std::vector<jobs::TraceJob> trace{job(1, sim::SimTime::zero(), 16, seconds(1000)),
                                          job(2, seconds(20), 4, seconds(50))};
  const jobs::SharedClusterRun one = f.run(trace, three_nodes());
  sim::RunOptions parallel;
  parallel.scheduler = sim::Scheduler::kParallel;
  parallel.threads = 4;
  const jobs::SharedClusterRun four = f.run(trace, three_nodes(), 1, parallel);
  CHECK(one.jobs.fingerprint == four.jobs.fingerprint);
  CHECK(one.jobs.preemptions == 1);
  for (std::size_t j = 0; j < trace.size(); ++j) CHECK(one.jobs.jobs[j].end == four.jobs.jobs[j].end);
  for (std::size_t i = 0; i < f.requests.size(); ++i) {
    CHECK(one.services[0].requests[i].end == four.services[0].requests[i].end);
  }
}

TEST_CASE("an elastic job shrinks for a replica, runs on slower, and grows back when the service leaves") {
  Fixture f;
  f.spec.autoscaler.max_replicas = 3;
  f.spec.serving.replicas = 2;
  f.spec.autoscaler.min_replicas = 2;
  // Node 0 holds the service's two replicas of four GPUs; the elastic job holds node 1: eight
  // GPUs, 1000 steps of 1 s, down to four in groups of two, its step at g GPUs 8/g s (perfect
  // scaling, the global batch kept).
  const std::vector<jobs::TraceJob> trace{job(1, sim::SimTime::zero(), 8, seconds(1000))};
  jobs::JobClusterSpec cluster;
  cluster.gpus_per_node.assign(2, 8);
  cluster.leaf_of_node.assign(2, 0);
  cluster.checkpoint_save = seconds(60);
  cluster.restart_overhead = seconds(120);
  jobs::ModelledStep step;
  step.step_s = 1;
  step.steps = 1000;
  cluster.modelled = {step};
  cluster.reference_rate = {1};
  cluster.min_gpus = {4};
  cluster.granule = {2};
  cluster.step_at = [](std::uint32_t, std::int32_t gpus) { return 8.0 / gpus; };
  std::vector<sim::SimTime> estimates{seconds(1000)};
  const jobs::SharedService service{f.requests, f.spec, &f.model, 1, 4};
  const jobs::SharedClusterRun run =
      jobs::run_shared_cluster(trace, estimates, cluster, std::span<const jobs::SharedService>(&service, 1), 1);
  const jobs::JobClusterRun& c = run.jobs;
  // At the first sync (15 s) the third replica claims four GPUs: the job gives four up on node 1
  // after writing its checkpoint (60 s), instead of stopping.
  REQUIRE(c.claims.size() == 3);
  CHECK(c.claims[2].asked == seconds(15));
  CHECK(c.claims[2].granted == seconds(75));
  CHECK(c.preemptions == 0);
  CHECK(c.shrinks == 1);
  CHECK(c.grows == 1);
  // 15 s of work done; 985 s left at 2 s a step's second, after a 120 s restart. When the service
  // leaves (its first GPUs back, at T) the job grows back: another checkpoint and restart
  // (180 s), then what is left at full speed.
  const double t = c.claims[2].released.to_seconds();
  REQUIRE(t > 75);
  REQUIRE(t < 75 + 120 + 985 * 2);
  const double left_at_t = 985 - (t - 75 - 120) / 2;  // seconds of work at full width
  CHECK(c.jobs[0].end.to_seconds() == doctest::Approx(t + 180 + left_at_t).epsilon(1e-12));
  REQUIRE(c.earlier_runs.size() == 2);
  CHECK(c.earlier_runs[0].end == seconds(75));
  CHECK(c.earlier_runs[0].nodes == 1);
  CHECK(c.shares[c.earlier_runs[1].first_share].gpus == 4);  // its shrunk run, on node 1's other four
  CHECK(c.checkpoint_gpu_s == doctest::Approx(60.0 * 8 + 60.0 * 8));
  CHECK(c.restart_gpu_s == doctest::Approx(120.0 * 4 + 120.0 * 8));
}

TEST_CASE("shrinking: whole groups, at least min_gpus, a width the job can take, the fewest GPUs") {
  place::GpuPool pool({8, 8}, {0, 0});
  const std::vector<place::NodeShare> a{{0, 6}, {1, 2}}, b{{1, 5}};
  pool.take(a);
  pool.take(b);  // free: node 0 two, node 1 one
  const auto any = [](std::uint32_t, std::int32_t) { return true; };
  std::vector<jobs::ShrinkCandidate> candidates{{{0, 0, seconds(0), a}, 8, 4, 2}};
  // Three GPUs: node 0 lacks one, a group of two from job 0's six there, leaving one spare
  // (2 free + 2 - 3); node 1 lacks two, job 0's two there, leaving none (1 + 2 - 3): the same
  // gift, and node 1 is the tighter.
  auto k = jobs::choose_shrink(pool, candidates, 3, any);
  REQUIRE(k);
  CHECK(k->job == 0);
  CHECK(k->release == place::NodeShare{1, 2});
  CHECK(k->replica == std::vector<place::NodeShare>{{1, 3}});
  // Six GPUs: node 0 lacks four, job 0 gives four of its six and keeps four, its minimum.
  k = jobs::choose_shrink(pool, candidates, 6, any);
  REQUIRE(k);
  CHECK(k->release == place::NodeShare{0, 4});
  // Eight: it would keep two, below its minimum.
  CHECK_FALSE(jobs::choose_shrink(pool, candidates, 8, any));
  // A width it cannot take is skipped for the next whole group: 6 GPUs refused, so four go.
  const auto not_six = [](std::uint32_t, std::int32_t gpus) { return gpus != 6; };
  k = jobs::choose_shrink(pool, candidates, 3, not_six);
  REQUIRE(k);
  CHECK(k->release.gpus == 4);
  CHECK(k->release.node == 0);
  // A replica larger than a node is never made by shrinking.
  CHECK_FALSE(jobs::choose_shrink(pool, candidates, 9, any));
}

TEST_CASE("victims: the lowest priority first, then the latest started, and only those the replica needs") {
  // Two nodes of eight, all busy: job 0 (priority 0) holds node 0; jobs 1 and 2 (priority 0,
  // started later) hold four GPUs each of node 1; job 3 (priority 3) holds nothing we may take.
  place::GpuPool pool({8, 8}, {0, 0});
  const std::vector<place::NodeShare> a{{0, 8}}, b{{1, 4}}, c{{1, 4}};
  pool.take(a);
  pool.take(b);
  pool.take(c);
  std::vector<jobs::VictimCandidate> candidates{{0, 0, seconds(0), a}, {1, 0, seconds(10), b}, {2, 0, seconds(20), c}};
  // Four GPUs: job 2 alone (latest started).
  auto e = jobs::choose_victims(pool, candidates, 4);
  REQUIRE(e);
  CHECK(e->victims == std::vector<std::uint32_t>{2});
  CHECK(e->replica == std::vector<place::NodeShare>{{1, 4}});
  // Eight GPUs: jobs 2 then 1 free node 1, and job 0 is spared.
  e = jobs::choose_victims(pool, candidates, 8);
  REQUIRE(e);
  CHECK(e->victims == std::vector<std::uint32_t>{2, 1});
  // A lower priority goes first whatever its start: job 0 at priority -1.
  candidates[0].priority = -1;
  e = jobs::choose_victims(pool, candidates, 8);
  REQUIRE(e);
  CHECK(e->victims == std::vector<std::uint32_t>{0});
  // Sixteen GPUs: every job; seventeen: none is enough.
  CHECK(jobs::choose_victims(pool, candidates, 16)->victims.size() == 3);
  CHECK_FALSE(jobs::choose_victims(pool, candidates, 17));
}

TEST_CASE("a replica takes the tightest node, whole nodes when larger, and is never split") {
  place::GpuPool pool({8, 8, 8}, {0, 0, 0});
  const std::vector<place::NodeShare> used{{0, 6}, {1, 2}};
  pool.take(used);
  std::vector<place::NodeShare> out;
  REQUIRE(place::place_replica(pool, 2, out));
  CHECK(out == std::vector<place::NodeShare>{{0, 2}});  // node 0's two free GPUs fit exactly
  out.clear();
  REQUIRE(place::place_replica(pool, 4, out));
  CHECK(out == std::vector<place::NodeShare>{{1, 4}});  // six free on node 1, eight on node 2
  out.clear();
  CHECK_FALSE(place::place_replica(pool, 16, out));  // one whole node free only
  pool.give(used);
  REQUIRE(place::place_replica(pool, 16, out));
  CHECK(out == std::vector<place::NodeShare>{{0, 8}, {1, 8}});
  out.clear();
  pool.take(std::vector<place::NodeShare>{{0, 1}, {1, 1}, {2, 1}});
  CHECK_FALSE(place::place_replica(pool, 8, out));  // 21 GPUs free, but no node has eight
  CHECK(out.empty());
}
