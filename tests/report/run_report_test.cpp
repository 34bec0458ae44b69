// The whole run in the training report: the checkpoint's write as the max-min closed form says,
// the run summarised, the same bytes on any thread count, and a checkpoint too large for its tier.
#include <doctest/doctest.h>
#include <tbb/global_control.h>

#include <sstream>
#include <string>

#include "models/workloads/training/transformer.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

std::string example(const std::string& name) { return std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + name; }

}  // namespace

TEST_CASE("the Llama 3 54-day run: the checkpoint's write is the max-min closed form") {
  const scenario::Scenario s =
      scenario::load_scenario(example("llama3-405b-54-days.yaml"), {"workload.run.replications=8"});
  const report::TrainingReport r = report::evaluate_training(s);
  REQUIRE(r.run_setup.has_value());
  REQUIRE(r.run.has_value());
  // 14 bytes per parameter, written by every node at once: each node's 400 Gb/s NICs (8 x 50 GB/s)
  // are far above its share of the tier's 2 TB/s, so every node writes at 2e12 / 2048 B/s.
  const double bytes = train::parameter_count(s.training.model) * 14;
  CHECK(r.run_setup->checkpoint->bytes == doctest::Approx(bytes));
  CHECK(r.run_setup->write_s == doctest::Approx(bytes / 2048 / (2e12 / 2048)));
  // Daly's interval in whole steps.
  CHECK(r.run_setup->interval_steps == static_cast<int>(std::round(r.run_setup->daly_s / r.result.step_seconds)));
  CHECK(r.run->interruptions.mean > 350);
  CHECK(r.run->effective_training_time.mean > 0.5);
  CHECK(r.run->effective_training_time.mean < 1.0);
}

TEST_CASE("the whole run's JSON is the same bytes on one thread or many") {
  const scenario::Scenario s =
      scenario::load_scenario(example("llama3-405b-54-days.yaml"), {"workload.run.replications=16"});
  std::ostringstream one, many;
  {
    tbb::global_control only(tbb::global_control::max_allowed_parallelism, 1);
    report::write_training_json(one, report::evaluate_training(s));
  }
  report::write_training_json(many, report::evaluate_training(s));
  CHECK(one.str() == many.str());
  CHECK(one.str().find("\"effective_training_time\"") != std::string::npos);
}

TEST_CASE("a checkpoint larger than its tier is an error at the tier's capacity") {
  const scenario::Scenario s = scenario::load_scenario(
      example("llama3-405b-54-days.yaml"), {"workload.run.replications=2", "storage.tectonic.capacity=1TB"});
  try {
    report::evaluate_training(s);
    FAIL("a 5.7 TB checkpoint fitted a 1 TB tier");
  } catch (const scenario::ScenarioError& e) {
    CHECK(e.key_path() == "storage.tectonic.capacity");
    CHECK(std::string(e.what()).find("5.68 TB") != std::string::npos);
  }
}
