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
