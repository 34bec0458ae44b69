// The planner on Megatron-LM SC'21 Table 1 (scenarios/validation/megatron-sc21-table1/): given
// each row's model and GPUs, a search over TP, PP and micro-batch finds a strategy at least as
// fast as the paper's under fathom's own model, and says where the paper's choice ranks. Its
// own CTest (megatron_sc21_planner, label slow): the 10 rows simulate some 500 candidates.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "plan/planner.hpp"

TEST_CASE("megatron-sc21 planner: the search finds the paper's strategy or a faster one, and ranks the paper's") {
  const std::filesystem::path folder =
      std::filesystem::path(FATHOM_SOURCE_DIR) / "scenarios/validation/megatron-sc21-table1";
  std::vector<std::filesystem::path> rows;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".yaml") rows.push_back(entry.path());
  }
  std::sort(rows.begin(), rows.end());
  REQUIRE(rows.size() == 10);
  fathom::plan::PlanOptions options;
  options.threads = 2;
  for (const auto& row : rows) {
    CAPTURE(row.filename().string());
    // TP within a node, PP in powers of two and the paper's own (35 stages for 529.6B on 2,240
    // GPUs, which no power of two divides), micro-batches of 1, 2 and 4.
    std::string pp = "[1, 2, 4, 8, 16, 32, 64";
    const int paper_pp = fathom::scenario::load_scenario(row.string()).training.parallel.pp;
    if ((paper_pp & (paper_pp - 1)) != 0) pp += ", " + std::to_string(paper_pp);
    const std::vector<std::string> search = {"plan.vary.tp=[1, 2, 4, 8]", "plan.vary.pp=" + pp + "]",
                                             "plan.vary.micro_batch=[1, 2, 4]"};
    const fathom::plan::PlanResult r = fathom::plan::run_plan(row.string(), search, options);
    const fathom::plan::Evaluated& paper = r.as_written;
    REQUIRE(paper.status == fathom::plan::Status::kFeasible);
    REQUIRE_FALSE(r.ranking.empty());
    const fathom::plan::Evaluated& best = r.candidates[r.ranking.front()];
    CHECK(best.step_s <= paper.step_s);
    CHECK(r.as_written_rank >= 1);
    CHECK(r.as_written_rank <= r.ranking.size());
    // The paper's strategy is in the grid, and its candidate is the scenario as written.
    const auto twin = std::find_if(r.candidates.begin(), r.candidates.end(),
                                   [&](const fathom::plan::Evaluated& e) { return e.values == paper.values; });
    REQUIRE(twin != r.candidates.end());
    CHECK(twin->step_s == paper.step_s);
    MESSAGE(row.filename().string() << ": paper tp " << paper.values[0] << ", pp " << paper.values[1]
                                    << ", micro-batch " << paper.values[2] << ": " << paper.step_s << " s, rank "
                                    << r.as_written_rank << " of " << r.ranking.size() << " feasible ("
                                    << r.candidates.size() << " candidates); best tp " << best.values[0] << ", pp "
                                    << best.values[1] << ", micro-batch " << best.values[2] << ": " << best.step_s
                                    << " s (" << 100 * (1 - best.step_s / paper.step_s) << "% faster)");
  }
}
