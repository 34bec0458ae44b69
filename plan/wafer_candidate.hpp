// A candidate of a wafer-scale training run's plan (docs/wafer.md, "Planning"): one weight-
// streaming step as `fathom simulate` runs it with the candidate's values, priced when the
// scenario has `cost:`, and held to the plan's deadline, budget and power.
#pragma once

#include "plan/planner.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::plan {

// Evaluates `s` (a loaded wafer-scale training scenario) into `e` (its index and values untouched).
void evaluate_wafer_candidate(const scenario::Scenario& s, const scenario::PlanSpec& plan, Evaluated& e);

}  // namespace fathom::plan
