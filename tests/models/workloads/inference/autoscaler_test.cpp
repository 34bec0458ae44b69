// The autoscaler against the Kubernetes HPA's algorithm: when it acts (every sync period), what
// it asks for (ceil(current x metric / target), nothing within the tolerance), the stabilization
// windows, the start-up and model load before a replica takes requests, and its bounds.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "models/workloads/inference/service.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "tests/models/workloads/inference/serving_fixtures.hpp"

using namespace fathom;

namespace {

sim::SimTime seconds(double s) { return sim::SimTime::from_ns(static_cast<std::int64_t>(s * 1e9)); }

// Two replicas ready, up to eight, scaling on outstanding requests per replica.
infer::ServiceSpec scaled(double target) {
  infer::ServiceSpec spec;
  spec.serving.replicas = 2;
  spec.serving.max_seqs = 4;
  spec.serving.routing = infer::Routing::kLeastOutstanding;
  spec.kv_blocks = 100000;
  infer::AutoscalerSpec& a = spec.autoscaler;
  a.enabled = true;
  a.metric = infer::ScaleMetric::kOutstanding;
  a.target = target;
  a.min_replicas = 2;
  a.max_replicas = 8;
  a.startup = seconds(10);
  a.load = {seconds(1), seconds(2), seconds(3), seconds(4), seconds(5), seconds(6), seconds(7), seconds(8)};
  return spec;
}

// The ready replicas just after `t`.
int ready_at(const infer::ServiceRun& run, sim::SimTime t) {
  int ready = 0;
  for (const auto& c : run.replica_counts) {
    if (c.time <= t) ready = c.ready;
  }
  return ready;
}

}  // namespace

TEST_CASE("a burst: the first sync asks ceil(2 x 40/2 / 10) = 4 replicas, ready after start-up and the load") {
  // 40 long requests at time 0 on two replicas: 20 outstanding each, target 10.
  const std::vector<infer::Request> requests(40, infer::Request{sim::SimTime::zero(), 200, 4000});
  const infer::ServiceSpec spec = scaled(10);
  const infer::IterationModel model(spec.serving, test::small_model(), test::slow_accelerator(), nullptr);
  const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
  REQUIRE(run.replica_counts.size() >= 3);
  CHECK(run.replica_counts[0].time == sim::SimTime::zero());
  CHECK(run.replica_counts[0].ready == 2);
  // At 15 s (the sync period) two more start, together: 10 s of start-up + load[1] = 2 s.
  CHECK(run.replica_counts[1].time == seconds(15));
  CHECK(run.replica_counts[1].starting == 2);
  CHECK(run.replica_counts[2].time == seconds(27));
  CHECK(run.replica_counts[2].ready == 4);
  // Requests already admitted stay where they are: the new replicas only take new ones.
  for (const auto& o : run.requests) CHECK(o.replica < 2);
  // The autoscaler stops syncing once every request has ended (the next test scales down).
  sim::SimTime last_end = sim::SimTime::zero();
  for (const auto& o : run.requests) last_end = std::max(last_end, o.end);
  CHECK(run.replica_counts.back().time <= last_end);
  for (const auto& c : run.replica_counts) {
    CHECK(c.ready + c.starting + c.draining <= 8);
    CHECK(c.ready >= 2);
  }
}

TEST_CASE("the scale-down window holds the highest recommendation of the last five minutes") {
  // A burst, then nothing: the metric falls at the burst's end, but replicas stay up until the
  // recommendations above them have left the 300 s window.
  std::vector<infer::Request> requests(40, infer::Request{sim::SimTime::zero(), 200, 400});
  requests.push_back({seconds(1200), 10, 2});  // one late request keeps the autoscaler syncing
  infer::ServiceSpec spec = scaled(2);
  spec.autoscaler.startup = sim::SimTime::zero();
  spec.autoscaler.load.clear();
  const infer::IterationModel model(spec.serving, test::small_model(), test::slow_accelerator(), nullptr);
  const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
  const sim::SimTime first_down = [&] {
    for (std::size_t i = 1; i < run.replica_counts.size(); ++i) {
      if (run.replica_counts[i].ready < run.replica_counts[i - 1].ready) return run.replica_counts[i].time;
    }
    return sim::SimTime::max();
  }();
  CHECK(ready_at(run, seconds(16)) == 8);  // at 15 s: ceil(2 x 20 / 2) = 20, clamped to 8
  // The burst is over long before, but the recommendation of 8 made at 15 s holds until 315 s.
  CHECK(run.requests[0].end < seconds(300));
  CHECK(first_down >= seconds(315));
  CHECK(first_down <= seconds(330));
  CHECK(ready_at(run, seconds(1199)) == 2);
}

TEST_CASE("within the tolerance nothing changes") {
  // 21 requests on two replicas, target 10: 10.5 per replica, a ratio of 1.05, within 10%.
  const std::vector<infer::Request> requests(21, infer::Request{sim::SimTime::zero(), 200, 4000});
  const infer::ServiceSpec spec = scaled(10);
  const infer::IterationModel model(spec.serving, test::small_model(), test::slow_accelerator(), nullptr);
  const infer::ServiceRun run = infer::run_service(requests, spec, model, 1);
  for (const auto& c : run.replica_counts) CHECK(c.ready == 2);
  CHECK(run.replica_counts.size() == 1);
}
