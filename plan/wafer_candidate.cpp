#include "plan/wafer_candidate.hpp"

#include <exception>
#include <string>

#include "plan/service_candidate.hpp"
#include "report/wafer/wafer_report.hpp"

namespace fathom::plan {

void evaluate_wafer_candidate(const scenario::Scenario& s, const scenario::PlanSpec& plan, Evaluated& e) {
  e.nodes = s.wafer.systems;
  e.gpus = s.wafer.systems;
  e.dp = s.wafer.systems;
  report::WaferReport r;
  try {
    r = report::evaluate_wafer(s);
  } catch (const std::exception& error) {
    e.status = Status::kInvalid;
    e.reason = error.what();
    return;
  }
  const wafer::WaferStep& step = r.step;
  e.peak_memory_bytes = step.memory.sram_bytes();
  e.step_s = step.step_s;
  e.time_to_train_s = step.time_to_train_s;
  e.mfu = step.utilization;
  e.tokens_per_s = step.tokens_per_s;
  if (r.cost) record_cost(*r.cost, e);
  e.status = Status::kFeasible;
  apply_run_constraints(plan, e);
}

}  // namespace fathom::plan
