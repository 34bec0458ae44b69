// A closed-form lower bound on a training step, for a planner to discard a strategy before
// simulating it (docs/plan.md, "Pruning by lower bounds"). It counts the accelerators' kernels
// alone: no communication, no pipeline waits beyond what one micro-batch's own passes force, no
// optimizer. The simulated step can only be longer:
//   - each stage's stream runs every pass of its chunks for every micro-batch one after
//     another, so the step is at least the busiest stage's kernel time;
//   - the last micro-batch's forward passes run through every virtual stage in turn and its
//     backward passes back, so the step is at least that chain's kernel time.
// step_model_test.cpp checks the bound against the simulated step over many strategies.
#pragma once

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/training_spec.hpp"

namespace fathom::train {

// Seconds; the spec must pass check().
double step_lower_bound_seconds(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator);

}  // namespace fathom::train
