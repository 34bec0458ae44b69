// Weight-streaming training against Argonne's published Cerebras runs
// (data/validation/cerebras-training-alcf.csv; docs/wafer.md, "Published figures"). The source
// gives the model, the systems, the sequence, the batch and the measured rate, but not what
// Cerebras's compiler chose (recomputation, micro-batch) nor the share of the dense peak a layer
// reaches. So each row is held to the model's bracket: the measured step must lie between the
// floor (recompute full, the largest micro-batch that fits, the full dense peak: the scenario as
// written) and the ceiling (every activation kept: micro-batches of a few samples, each streaming
// the weights again). A model off by more than the bracket fails.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "report/inference/inference_report.hpp"
#include "report/wafer/wafer_report.hpp"
#include "tests/support/csv_cells.hpp"

using namespace fathom;

TEST_CASE("Argonne's Cerebras training runs lie between the weight-streaming model's floor and ceiling") {
  std::ifstream table(std::string(FATHOM_SOURCE_DIR) + "/data/validation/cerebras-training-alcf.csv");
  REQUIRE(table.good());
  std::string line;
  std::getline(table, line);
  REQUIRE(line.rfind("name,scenario,model,systems,sequence,global_batch,published_samples_per_s,published_step_s", 0) ==
          0);
  int rows = 0;
  while (std::getline(table, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = test::first_cells(line, 8);
    CAPTURE(cells[0]);
    const std::string file = std::string(FATHOM_SOURCE_DIR) + "/" + cells[1];
    const double samples_per_s = std::stod(cells[6]);
    const double step_s = std::stod(cells[7]);
    const int batch = std::stoi(cells[5]);
    // The table's step is its batch over its rate.
    CHECK(step_s == doctest::Approx(batch / samples_per_s).epsilon(1e-3));
    const report::WaferReport floor = report::evaluate_wafer(scenario::load_scenario(file));
    const report::WaferReport ceiling =
        report::evaluate_wafer(scenario::load_scenario(file, {"workload.recompute=none"}));
    CHECK(floor.scenario.wafer_training.global_batch == batch);
    CHECK(floor.scenario.wafer.systems == std::stoi(cells[3]));
    CHECK(floor.scenario.wafer_training.sequence == std::stoi(cells[4]));
    MESSAGE(cells[0] << ": published " << step_s << " s a step, fathom's floor " << floor.step.step_s << " s, ceiling "
                     << ceiling.step.step_s << " s");
    CHECK(floor.step.step_s <= step_s);
    CHECK(step_s <= ceiling.step.step_s);
    ++rows;
  }
  CHECK(rows == 2);
}

// Cerebras's published speeds a user (data/validation/cerebras-inference-speed.csv): the Llama 3.1
// rows are where a layer's unpublished dataflow latency comes from, the roofline alone (their
// scenarios: both efficiencies at 1, a layer's latency at 1 ns) must be faster than each published
// speed and what it leaves per layer is the latency docs/wafer.md states; Llama 4 Maverick, the
// deployment guide's "2,522 tokens/s on a 400B model", is predicted at the 405B row's latency and
// held to its tolerance.
TEST_CASE("Cerebras's published inference speeds: the implied layer latencies, and Maverick predicted from them") {
  std::ifstream table(std::string(FATHOM_SOURCE_DIR) + "/data/validation/cerebras-inference-speed.csv");
  REQUIRE(table.good());
  std::string line;
  std::getline(table, line);
  REQUIRE(line.rfind(
              "name,scenario,model,wafers,published_tokens_per_s_per_user,use,implied_layer_latency_us,tolerance", 0) ==
          0);
  double latency_405b = 0;
  int rows = 0;
  while (std::getline(table, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = test::first_cells(line, 8);
    CAPTURE(cells[0]);
    const scenario::Scenario s = scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/" + cells[1]);
    CHECK(s.inference.model.name == cells[2]);
    CHECK(s.inference.serving.pp * s.inference.serving.tp == std::stoi(cells[3]));
    const double published = std::stod(cells[4]);
    const report::InferenceReport r = report::evaluate_inference(s);
    const double tpot = r.metrics.tpot_s.mean;
    if (!cells[6].empty()) {
      REQUIRE(s.accelerator.layer_latency_s < 1e-8);  // the roofline alone
      CHECK(tpot < 1 / published);
      const double implied = (1 / published - tpot) / s.inference.model.layers;
      CHECK(implied * 1e6 == doctest::Approx(std::stod(cells[6])).epsilon(0.01));
      if (cells[0] == "llama3.1-405b") latency_405b = implied;
    } else {
      // Predicted: its scenario takes the 405B row's latency (as docs/wafer.md rounds it).
      REQUIRE(latency_405b > 0);
      CHECK(s.accelerator.layer_latency_s == doctest::Approx(latency_405b).epsilon(0.01));
      const double tolerance = std::stod(cells[7]);
      CHECK(1 / tpot == doctest::Approx(published).epsilon(tolerance));
    }
    ++rows;
  }
  CHECK(rows == 4);
}
