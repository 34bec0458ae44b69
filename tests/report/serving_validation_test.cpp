// The serving model against TensorRT-LLM's published online measurements on H100
// (data/validation/serving-online-h100.csv; docs/validation.md gives every row's error). Each row
// runs its scenario at its request rate; a row marked `within` must come within its tolerance, a
// row marked `gap` is a published figure the model misses (its note and docs/validation.md say
// why), and it must still miss it: a change that closes a gap updates the table.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "report/inference/inference_report.hpp"
#include "tests/support/csv_cells.hpp"

using namespace fathom;

TEST_CASE("TensorRT-LLM's online serving table: throughput within 15% at every rate; latency gaps as documented") {
  std::ifstream file(std::string(FATHOM_SOURCE_DIR) + "/data/validation/serving-online-h100.csv");
  REQUIRE(file.good());
  std::string line;
  std::getline(file, line);
  CHECK(line.rfind("name,scenario,rate,figure,published,unit,tolerance,expected,", 0) == 0);
  std::map<std::string, infer::ServiceMetrics> runs;  // by scenario and rate
  int rows = 0, within = 0, throughput_rows = 0;
  while (std::getline(file, line)) {
    const auto c = test::first_cells(line, 8);
    REQUIRE(c.size() == 8);
    const std::string& name = c[0];
    const std::string& rate = c[2];
    const std::string& figure = c[3];
    CAPTURE(name);
    const std::string key = c[1] + "@" + rate;
    if (!runs.count(key)) {
      const auto s =
          scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/" + c[1], {"workload.requests.rate=" + rate});
      runs[key] = report::evaluate_inference(s).metrics;
    }
    const infer::ServiceMetrics& m = runs[key];
    const double model = figure == "mean_ttft"  ? m.ttft_s.mean * 1e3
                         : figure == "mean_itl" ? m.tpot_s.mean * 1e3
                                                : m.throughput_tokens_per_s;
    REQUIRE((figure == "mean_ttft" || figure == "mean_itl" || figure == "output_throughput"));
    const double published = std::stod(c[4]);
    const double error = (model - published) / published;
    const double tolerance = std::stod(c[6]);
    const bool is_within = std::abs(error) <= tolerance;
    CAPTURE(model);
    CAPTURE(error);
    MESSAGE(name << ": published " << published << ", fathom " << model << ", error " << error * 100 << "%");
    CHECK(is_within == (c[7] == "within"));
    ++rows;
    within += is_within ? 1 : 0;
    if (figure == "output_throughput") {
      ++throughput_rows;
      CHECK(is_within);
    }
  }
  CHECK(rows == 36);
  CHECK(throughput_rows == 12);
  CHECK(within == 19);
}
