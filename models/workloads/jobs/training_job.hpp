// A modelled training job on the shared cluster: its step simulated by the training model
// (models/workloads/training/) where it runs alone, then stretched by its neighbours.
//
// The step is simulated once, with the job's ranks on the cluster's first nodes and no other
// traffic. Beside other jobs, only its data-parallel collectives across nodes meet them
// (FabricShare): they run `slowdown` times longer, where slowdown is the job's ring rate where
// its step was simulated over its ring rate now. How much of the stretch reaches the step
// depends on what the collectives overlapped:
//  - the gradient reduction ended `overhang` past the pipeline's end (negative: that long before
//    it); stretched by (slowdown - 1) x its time, its end moves by as much, and only what lies
//    past the pipeline's end is on the step;
//  - data-parallel time already on the step's critical path elsewhere (ZeRO-3's gathers inside
//    the passes, a parameter gather that is not overlapped) stretches in full;
//  - a parameter gather overlapped with the next forward pass stays hidden.
//
//   step(s) = step - max(0, overhang) + max(0, overhang + (s - 1) x reduce) + (s - 1) x exposed
//
// so a reduction hidden behind the backward pass costs nothing until it outgrows its slack.
#pragma once

#include <cstdint>
#include <string>

#include "models/workloads/training/step_model.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::jobs {

struct TrainingJob {
  std::string name;
  train::TrainingSpec spec;  // spec.gpus: the GPUs it asks for
  std::int64_t steps = 0;
};

struct ModelledStep {
  double step_s = 0;      // alone, as simulated
  double reduce_s = 0;    // the gradient reduction's collectives in the step (critical stage)
  double overhang_s = 0;  // how far the reduction's end lies past the pipeline's (< 0: slack)
  double exposed_s = 0;   // other data-parallel time on the critical path
  std::int64_t steps = 0;

  // The step when the data-parallel collectives run `slowdown` times their simulated time.
  double step_under(double slowdown) const;
};

// The figures above from the step simulated alone (result.simulated must be true).
ModelledStep modelled_step(const train::TrainingResult& result, std::int64_t steps);

}  // namespace fathom::jobs
