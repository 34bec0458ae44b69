// A whole training run through failures, restarts and checkpoints, as independent Monte Carlo
// replications (docs/run.md). The step itself comes from the training model; here a step is
// a fixed duration, and the run is a sequence of steps, checkpoint blocks and recoveries on an
// integer-nanosecond clock.
//
// A replication, in order:
//   - it trains from its last valid checkpoint: K steps, then the checkpoint's blocking part
//     (the whole write when synchronous; the copy to host memory when asynchronous, whose
//     write then drains behind the next steps and makes the checkpoint valid only when done;
//     a block waits for the previous drain);
//   - each component class interrupts it at the instants of its own renewal process, which
//     runs on the wall clock (parts fail whether or not the job is up);
//   - an unplanned interruption loses the steps since the last valid checkpoint; recovery is
//     detection, a node (a spare, or the first one back from repair) when the failure took
//     one, resubmission once max_restarts in-place restarts are spent, the restart and the
//     checkpoint's read; an interruption during recovery starts recovery again;
//   - a planned one (maintenance) checkpoints first, synchronously, and loses nothing;
//   - it ends when the run's steps are done, or at the run's duration.
// Replications run in parallel (TBB), each on its own random stream (seed, replication), so
// results do not depend on the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/reliability/failure_spec.hpp"
#include "sim/stats/confidence.hpp"

namespace fathom::rel {

struct RunInputs {
  std::int64_t step_ns = 0;              // the data stall included
  std::int64_t data_stall_ns = 0;        // of step_ns, waiting for the step's samples
  std::int64_t steps = 0;                // to train; 0 with a duration
  std::int64_t duration_ns = 0;          // to simulate; 0 with steps
  int checkpoint_interval = 0;           // steps between checkpoints; 0: none
  std::int64_t checkpoint_block_ns = 0;  // the step loop waits this long per checkpoint
  std::int64_t checkpoint_drain_ns = 0;  // asynchronous: the write behind the next steps
  std::int64_t checkpoint_write_ns = 0;  // a synchronous write (before planned maintenance)
  std::int64_t restore_ns = 0;           // reading the checkpoint back
  // Units of each Unit kind under the run: GPUs, nodes, NICs.
  std::array<std::int64_t, 3> units{};
  int spares = 0;
  FailureSpec failures;
  double tokens_per_step = 0;
  int gpus = 0;
  int replications = 1;
  std::uint64_t seed = 1;
  bool timeline = false;  // record replication 0's events (Replication::timeline)
};

// Wall time of one replication by what it was spent on; the parts sum to `wall_ns`.
struct RunTime {
  std::int64_t kept_ns = 0;        // steps the run kept, their data stall apart
  std::int64_t data_ns = 0;        // kept steps waiting for their samples
  std::int64_t lost_ns = 0;        // steps redone after an interruption
  std::int64_t checkpoint_ns = 0;  // the step loop blocked by checkpoints
  std::int64_t detection_ns = 0;
  std::int64_t waiting_ns = 0;  // for a node: a spare's swap, or a repair
  std::int64_t restart_ns = 0;
  std::int64_t restore_ns = 0;
  std::int64_t resubmit_ns = 0;
  std::int64_t wall_ns = 0;
};

// What replication 0 did when, for the run's timeline (Perfetto).
struct RunEvent {
  enum class Kind { kTraining, kCheckpoint, kFailure, kDetection, kWaiting, kResubmit, kRestart, kRestore };
  Kind kind = Kind::kTraining;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;                // a failure is an instant: end = start
  Component component = Component::kGpu;  // of a failure
};

struct Replication {
  RunTime time;
  std::int64_t steps_kept = 0;
  std::array<int, kComponents> interruptions{};  // by component (planned ones under kMaintenance)
  int resubmissions = 0;
  int spares_short = 0;            // interruptions that waited for a repair
  std::vector<double> recovery_s;  // per unplanned interruption: failure to training again
  bool finished = false;           // the run's steps were done (always false with a duration)
  std::vector<RunEvent> timeline;  // replication 0's only
};

struct RunResult {
  RunInputs inputs;
  std::vector<Replication> replications;
  sim::MeanInterval wall_s;                                      // time to train (or the duration)
  sim::MeanInterval effective_training_time;                     // kept step time over wall time
  sim::MeanInterval goodput_tokens_per_s;                        // kept tokens over wall time
  sim::MeanInterval interruptions;                               // unplanned, per replication
  std::array<double, kComponents> interruptions_by_component{};  // mean per replication
  sim::MeanInterval lost_gpu_hours;                              // GPUs x (wall - kept) / 3600
  double recovery_p50_s = 0, recovery_p99_s = 0;                 // over every unplanned interruption
  RunTime mean_time;                                             // the parts' means, for the breakdown
  double mtbf_s = 0;                                             // the run's mean time between unplanned interruptions
};

// The run's mean time between unplanned interruptions: 1 / sum of the classes' rates.
double run_mtbf_s(const FailureSpec& failures, const std::array<std::int64_t, 3>& units);

// Young's first-order and Daly's higher-order optimum checkpoint interval (seconds of work
// between checkpoints) for a checkpoint costing `delta_s` of blocked time on a run whose mean
// time between interruptions is `mtbf_s`: sqrt(2 delta M), and (Daly 2006, for delta < 2M)
// sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9) - delta, else M.
double young_interval_s(double delta_s, double mtbf_s);
double daly_interval_s(double delta_s, double mtbf_s);

// std::invalid_argument on inconsistent inputs (no step time, neither steps nor duration,
// fewer than one replication).
RunResult simulate_run(const RunInputs& inputs);
// One replication (the tests drive it directly).
Replication simulate_replication(const RunInputs& inputs, std::uint64_t replication);

}  // namespace fathom::rel
