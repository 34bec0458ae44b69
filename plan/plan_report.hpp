// `fathom plan`'s writers (docs/plan.md): the terminal's ranking with why the best wins, and a
// CSV or JSON of every candidate.
#pragma once

#include <cstdio>
#include <ostream>

#include "plan/planner.hpp"

namespace fathom::plan {

// The counts by status, the top `top` feasible candidates, the best one's step beside the
// runner-up's and beside the best candidate a constraint rejected, and the first candidate
// of each kind of rejection with its reason.
void write_plan_summary(std::FILE* out, const PlanResult& result, int top);

// One row per candidate, in candidate order: its index, its rank (empty when not feasible),
// the axes' values, its status and reason, and its figures in SI units.
void write_plan_csv(std::ostream& out, const PlanResult& result);

// The same as JSON (plan_json.cpp), with the objectives, the ranking and the Pareto front as
// candidate indices, the scenario as written, and each simulated candidate's step breakdown.
void write_plan_json(std::ostream& out, const PlanResult& result);

}  // namespace fathom::plan
