// Pipeline schedules and their execution. A schedule is, for every pipeline stage, the order
// in which it runs the forward and backward passes of its micro-batches (and, interleaved, of
// its model chunks). Execution places each pass at the earliest time its stage is free and
// its input has arrived: a forward needs the previous virtual stage's forward of the same
// micro-batch plus the point-to-point transfer; a backward needs the next virtual stage's
// backward (the last virtual stage's backward needs its own forward).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace fathom::train {

struct PipelinePass {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  // model chunk on this stage (interleaved); virtual stage = chunk * stages + stage
};

// PipeDream-Flush 1F1B: stage s runs min(stages - s - 1, m) warm-up forwards, then alternates
// one forward and one backward, then drains the remaining backwards.
std::vector<std::vector<PipelinePass>> one_f_one_b(int stages, int micro_batches);

// Megatron's interleaved 1F1B with `chunks` model chunks per stage; micro-batches go through
// the chunks in groups of `stages`. Needs micro_batches to be a multiple of stages.
std::vector<std::vector<PipelinePass>> interleaved_one_f_one_b(int stages, int micro_batches, int chunks);

struct PassTiming {
  PipelinePass pass;
  sim::SimTime start;
  sim::SimTime finish;
  sim::SimTime input_ready;  // when its input arrived (the transfer included)
};

struct PipelineCosts {
  // Duration of one pass: [stage][chunk] for forward and for backward.
  std::vector<std::vector<sim::SimTime>> forward;
  std::vector<std::vector<sim::SimTime>> backward;
  // Point-to-point transfer between consecutive virtual stages, [stage]: the activation from
  // stage s to the next (s + 1, or 0 for the wrap into the next chunk), and the gradient from
  // stage s to the previous (s - 1, or p - 1 for the wrap into the previous chunk).
  std::vector<sim::SimTime> send_forward;
  std::vector<sim::SimTime> send_backward;
};

struct PipelineRun {
  std::vector<std::vector<PassTiming>> stages;  // in each stage's execution order
  std::vector<sim::SimTime> finish;             // each stage's last pass end
  sim::SimTime makespan;
};

// Executes `schedule` with `costs`. Throws std::logic_error if the schedule deadlocks (a
// stage waits on a pass scheduled after one that waits on it).
PipelineRun run_pipeline(const std::vector<std::vector<PipelinePass>>& schedule, const PipelineCosts& costs,
                         int chunks);

// The most micro-batch chunks whose activations a stage holds at once under `schedule`
// (forward done, backward not yet), per stage.
std::vector<int> peak_in_flight(const std::vector<std::vector<PipelinePass>>& schedule);

}  // namespace fathom::train
