// `fathom plan`'s search (docs/plan.md): every combination of the scenario's `plan.vary` values
// is a candidate scenario (the file with those keys set, as --set would), loaded and checked by
// the scenario loader, pruned by memory before any step is simulated, evaluated by the report
// layer with the full step model (and the cost model when the scenario prices its cluster),
// held to the plan's constraints and ranked by its objective. Evaluation runs on `threads`
// threads; the result does not depend on how many.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/workloads/training/step_model.hpp"
#include "scenarios/scenario.hpp"
#include "sim/processes/process_group.hpp"

namespace fathom::plan {

enum class Status {
  kFeasible,
  kInvalid,              // the scenario loader or the step model refused the combination
  kOutOfMemory,          // a rank's memory exceeds its HBM: not simulated
  kMissesDeadline,       // the run takes longer than plan.deadline
  kOverBudget,           // capex above plan.budget
  kOverPower,            // facility power above plan.power
  kBoundMissesDeadline,  // its step's lower bound (step_bound.hpp) already misses plan.deadline:
                         // not simulated
  kMissesSlo,            // an inference service's P99 latency above its SLO (at every replica count
                         // plan.fewest_replicas allows)
};

// A candidate of an inference service's plan: what its simulated service gave.
struct ServiceFigures {
  int replicas = 0;     // the decode (or only) pool's; an autoscaler's max_replicas
  int evaluations = 0;  // services simulated to find the replica count
  double p99_ttft_s = 0;
  double p99_tpot_s = 0;
  double p99_e2e_s = 0;
  double requests_per_s = 0;
  double goodput = 0;       // the share of finished requests meeting the SLO
  double usd_per_hour = 0;  // its GPUs at the cluster's cost per GPU-hour (with cost:)
  double usd_per_million_tokens = 0;
};

std::string_view status_name(Status status);

struct Evaluated {
  std::size_t index = 0;            // in candidate order (the last axis fastest)
  std::vector<std::string> values;  // one per axis
  Status status = Status::kInvalid;
  std::string reason;  // why it is not feasible, in words
  int nodes = 0;
  int gpus = 0;
  int dp = 0;
  double step_s = 0;
  double time_to_train_s = 0;  // 0 without workload.tokens
  double mfu = 0;
  double tokens_per_s = 0;
  double peak_memory_bytes = 0;
  train::StepBreakdown breakdown;
  bool priced = false;  // the scenario has cost:
  double capex_usd = 0;
  double usd_per_run = 0;
  double facility_power_w = 0;
  double usd_per_gpu_hour = 0;
  bool service = false;  // an inference service's candidate: `serving` holds its figures, not the step's
  ServiceFigures serving;
  bool simulated() const {
    return status != Status::kInvalid && status != Status::kOutOfMemory && status != Status::kBoundMissesDeadline;
  }
};

struct PlanResult {
  std::vector<std::string> axes;      // the axes' names, as written under vary:
  std::vector<Evaluated> candidates;  // every candidate, in candidate order
  std::vector<std::size_t> ranking;   // the feasible ones, best first
  scenario::PlanObjective objective = scenario::PlanObjective::kTime;
  // With two objectives or more: the feasible candidates no other beats on one objective without
  // losing on another (lower objective_value on all, strictly on one), ordered as ranked.
  std::vector<scenario::PlanObjective> objectives;
  std::vector<std::size_t> pareto;
  // A wafer-scale cluster's plan (training or a service): a candidate's "GPUs" are its systems,
  // one wafer each, and a training step has no GPU breakdown (docs/wafer.md, "Planning").
  bool wafer = false;
  // The scenario as written, evaluated as a candidate: its values are what the file (and the
  // command's --set) give each axis's key, "default" where neither does. Its rank is where it
  // would stand among the feasible candidates (1 = at least as good as every one); 0 when it is
  // not feasible itself.
  Evaluated as_written;
  std::size_t as_written_rank = 0;
  // False on the processes of a group but rank 0: they hold their own share of the candidates
  // alone and write nothing.
  bool complete = true;
};

struct PlanOptions {
  int threads = 1;
  // Called after each evaluated candidate with (done, total), from the calling thread only.
  std::function<void(std::size_t, std::size_t)> progress;
  // A journal file (journal.hpp): each batch's candidates are appended as they are evaluated.
  // With `resume`, the candidates it holds already are taken from it instead of evaluated again.
  std::string journal;
  bool resume = false;
  // The processes of an mpirun launch (null: this one alone): candidate i is evaluated by the
  // process of rank i mod size, and every figure is gathered to rank 0, whose result is the one
  // a single process gives, to the bit. The other ranks' results are not complete.
  const sim::ProcessGroup* processes = nullptr;
  // With plan.deadline: a candidate whose step's closed-form lower bound (its kernels alone)
  // already misses the deadline is not simulated (kBoundMissesDeadline). The feasible
  // candidates and their ranking are the same either way; only the rejected ones differ.
  bool prune_by_bound = true;
};

// The candidates' --set assignments, in candidate order.
std::vector<std::vector<std::string>> candidate_overrides(const scenario::PlanSpec& plan);

// Runs the plan of the scenario `file` (loaded with `overrides`, which must give it a plan:).
PlanResult run_plan(const std::string& file, const std::vector<std::string>& overrides, const PlanOptions& options);

// The objective's figure for a simulated candidate: lower is better. An inference service's time is
// its P99 end-to-end latency and its cost the service's cost per hour.
double objective_value(const Evaluated& e, scenario::PlanObjective objective);

// Whether `a` ranks before `b`: the objective, then the faster run (the index breaks the rest).
bool ranks_before(const Evaluated& a, const Evaluated& b, scenario::PlanObjective objective);

}  // namespace fathom::plan
