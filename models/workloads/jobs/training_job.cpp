#include "models/workloads/jobs/training_job.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace fathom::jobs {

double ModelledStep::step_under(double slowdown) const {
  const double stretch = slowdown - 1;
  return step_s - std::max(0.0, overhang_s) + std::max(0.0, overhang_s + stretch * reduce_s) + stretch * exposed_s;
}

ModelledStep modelled_step(const train::TrainingResult& result, std::int64_t steps) {
  if (!result.simulated || result.stages.empty()) {
    throw std::invalid_argument("modelled_step: the step was not simulated (the strategy does not fit in memory)");
  }
  const train::StageResult& stage = result.stages[static_cast<std::size_t>(result.critical_stage)];
  ModelledStep m;
  m.step_s = result.step_seconds;
  m.steps = steps;
  // Gradient buckets start before the optimizer; parameter gathers after it (step_timeline.cpp).
  std::optional<sim::SimTime> last;
  for (const train::DataParallelSpan& span : stage.dp_spans) {
    if (span.start >= stage.optimizer_finish) continue;
    m.reduce_s += (span.finish - span.start).to_seconds();
    last = last ? std::max(*last, span.finish) : span.finish;
  }
  if (last) m.overhang_s = (*last - stage.pipeline_finish).to_seconds();
  const double gather_exposed = (stage.finish - stage.optimizer_finish).to_seconds();
  const double reduce_exposed = std::max(0.0, m.overhang_s);
  // What is left of the breakdown's data-parallel time: ZeRO-3's collectives inside the passes.
  m.exposed_s = gather_exposed + std::max(0.0, stage.breakdown.dp - reduce_exposed - gather_exposed);
  return m;
}

}  // namespace fathom::jobs
