// `simulate` for a wafer-scale training workload, as a result object: one weight-streaming step
// (models/workloads/wafer/weight_streaming.hpp) and the scenario's expectations. Writers turn it
// into the terminal report and the JSON report (docs/wafer.md documents both).
#pragma once

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/cost/cost_model.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/swarmx_tree.hpp"

namespace fathom::report {

struct WaferReport {
  scenario::Scenario scenario;
  wafer::WaferStep step;
  std::optional<cost::CostResult> cost;  // with a `cost:` section
  std::vector<ExpectationOutcome> expectations;
  bool all_pass = true;
};

// The step and the expectations. The scenario was checked when it loaded (the model's
// first_violation), so this does not fail on its input.
WaferReport evaluate_wafer(scenario::Scenario scenario);

// One of the figures an expectation can name for weight-streaming training, in SI units:
// step_time, tokens_per_s, time_to_train, mfu (the model's FLOP/s over the systems' dense peak),
// and with a cost the cost model's capex, tco, run_cost, it_power and facility_power.
double wafer_figure(const std::string& key, const WaferReport& report);

void write_wafer_summary(std::FILE* out, const WaferReport& report);
void write_wafer_json(std::ostream& out, const WaferReport& report);

// `fathom topology` of a wafer-scale scenario: the SwarmX tree between MemoryX and the systems,
// level by level, with each level's link rate.
void write_wafer_topology(std::FILE* out, const scenario::Scenario& scenario);
// Every directed link of that tree as `fathom topology --links` writes a GPU cluster's.
void write_wafer_links_csv(std::ostream& out, const scenario::Scenario& scenario);
// The same for a service on wafers: the systems, their groups of tensor-parallel wafers, the
// switch between them, and what each replica holds.
void write_wafer_serving_topology(std::FILE* out, const scenario::Scenario& scenario);

}  // namespace fathom::report
