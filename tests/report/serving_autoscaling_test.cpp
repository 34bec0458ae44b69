// The autoscaling example (docs/inference.md, "The autoscaler"): replicas follow a diurnal load,
// up towards its peak and down towards its trough, within their bounds; the model's load from the
// object store is the storage model's; the GPU-utilization metric holds more replicas than a
// concurrency metric for the same SLO.
#include <doctest/doctest.h>

#include <string>

#include "report/inference/inference_report.hpp"

using namespace fathom;

namespace {

report::InferenceReport run(const std::vector<std::string>& overrides = {}) {
  const auto s = scenario::load_scenario(
      std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/llama3-8b-autoscaling.yaml", overrides);
  return report::evaluate_inference(s);
}

int ready_at(const infer::ServiceRun& r, double t) {
  int ready = 0;
  for (const auto& c : r.replica_counts) {
    if (c.time.to_seconds() <= t) ready = c.ready;
  }
  return ready;
}

}  // namespace

TEST_CASE("the autoscaling example: replicas follow the diurnal load within 2 and 16") {
  const report::InferenceReport r = run();
  const infer::ServiceRun& x = r.run;
  CHECK(r.metrics.finished == 43200);
  // The rate peaks at 30 minutes (10.8 requests/s) and is lowest at 90 (1.2 requests/s).
  CHECK(ready_at(x, 1800) > ready_at(x, 5400));
  CHECK(ready_at(x, 5400) < 16);
  int low = 16, high = 0;
  for (const auto& c : x.replica_counts) {
    low = std::min(low, c.ready);
    high = std::max(high, c.ready + c.starting);
  }
  CHECK(low >= 2);
  CHECK(high <= 16);
  // 16 GB of BF16 weights from the MinIO tier, one replica alone: a positive load time, the
  // storage model's (not a constant of the autoscaler).
  REQUIRE(r.model_load.size() == 16);
  CHECK(r.model_load.front() > sim::SimTime::zero());
  CHECK(r.model_load.back() >= r.model_load.front());
  // A concurrency metric meets the SLO for as many requests (all but 2 of 43,200, against all
  // but 1) on a tenth of the GPU-hours.
  const report::InferenceReport c = run({"workload.autoscaler.metric=outstanding", "workload.autoscaler.target=16"});
  CHECK(c.run.replica_seconds < 0.2 * x.replica_seconds);
  CHECK(static_cast<double>(c.metrics.good_requests) >= 0.999 * static_cast<double>(c.metrics.finished));
  CHECK(static_cast<double>(r.metrics.good_requests) >= 0.999 * static_cast<double>(r.metrics.finished));
}
