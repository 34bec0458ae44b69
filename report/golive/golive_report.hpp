// `fathom report`: the go-live report (docs/go-live.md). The planned cluster's training step,
// its fabric's all-reduce bandwidth and, when the scenario names one (`report.pilot`), the
// pilot's, held to the acceptance criteria a deployment is signed off against. Each criterion
// is a row of data (what was predicted, the target, the verdict, what to change); renderers
// (golive_writers.hpp) turn the rows and the runs behind them into Markdown or HTML.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/inference/inference_report.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {

enum class Verdict {
  kPass,
  kFail,
  kReported,      // a figure with no target to hold it to (a cost without a budget)
  kNotEvaluated,  // it needs a step the strategy cannot run (it does not fit), or a pilot
  kNotModelled,   // fathom has no model for it yet; `issue` says which issue adds one
};

// "pass", "FAIL", "reported", "not evaluated", "not modelled yet".
std::string_view verdict_text(Verdict verdict);

struct Criterion {
  std::string name;       // "Training throughput (MFU)"
  std::string predicted;  // in the unit the target is written in ("35.10%"); "" when none
  std::string target;     // ">= 38%"
  Verdict verdict = Verdict::kNotEvaluated;
  std::string remedy;  // what to change when it fails (or, not modelled, which issue adds it)
  std::string note;    // how it was reckoned and where the target comes from
  // How far the figure is from its target, as a ratio that passes at 1 or more (predicted over
  // target for ">=", target over predicted for "<="); 0 without one. The summary plot draws it.
  double margin = 0;
};

// The all-reduce bus bandwidth of the GPUs of the cluster's first `report.bandwidth_nodes` nodes
// at a large message (a simulated nccl-tests all_reduce_perf, report/collectives/), beside the line rate of a node's
// NICs, which bounds it: a ring or hierarchical all-reduce across nodes moves each byte through every node's NICs
// twice, so its bus bandwidth approaches the node's NIC rate (docs/go-live.md).
struct FabricBandwidth {
  int nodes = 0;  // that the all-reduce spans
  int gpus = 0;
  double message_bytes = 0;
  double bus_bytes_per_s = 0;
  double line_rate_bytes_per_s = 0;  // one node's NICs together, per direction
  std::string algorithm;
  bool closed_form = false;  // timed by the algorithm's closed form (large clusters), not its DAG
  double utilisation() const { return line_rate_bytes_per_s > 0 ? bus_bytes_per_s / line_rate_bytes_per_s : 0; }
};

// Where the peak goes: MFU = busy x kernel efficiency x useful share, exactly.
struct ReachablePeak {
  double peak_flops = 0;         // dense, at the run's precision
  double busy = 0;               // share of the step the accelerators compute (stages averaged)
  double kernel_efficiency = 0;  // hardware FLOP/s while computing, over peak
  double useful = 0;             // model FLOPs over hardware FLOPs (recomputation's cost)
  double ceiling = 0;            // kernel_efficiency x useful: MFU with nothing exposed
  // Shares of the step of the critical stage: compute, the bubble, exposed communication, the
  // optimizer and the wait for the slowest rank; they add up to 1.
  double compute_share = 0, bubble_share = 0, communication_share = 0, optimizer_share = 0, straggler_share = 0;
};

// One cluster's figures: its step and the fabric's bandwidth.
struct GoLiveRun {
  TrainingReport training;
  std::optional<FabricBandwidth> bandwidth;  // none on one node
  std::optional<ReachablePeak> peak;         // when the strategy fits
  double tokens_per_s_per_gpu() const;
};

struct GoLiveReport {
  GoLiveRun cluster;
  std::optional<GoLiveRun> pilot;          // with `report.pilot`
  std::optional<InferenceReport> service;  // with `report.service`
  std::vector<Criterion> criteria;
  const scenario::Scenario& scenario() const { return cluster.training.scenario; }
  bool all_pass() const;  // no criterion failed
};

// No criterion of `criteria` failed ("reported", "not evaluated" and "not modelled yet" never fail).
bool none_failed(const std::vector<Criterion>& criteria);

// A criterion the report evaluates: the rows it adds (none, one or several) from the runs. The
// registry (golive_criteria()) lists them in the report's order; a model that comes later (the
// inference service, failures over time, the run with checkpoints and storage) replaces its
// "not modelled yet" entry there with its own rule.
struct CriterionRule {
  std::string_view id;
  std::function<std::vector<Criterion>(const GoLiveReport&)> evaluate;
};
const std::vector<CriterionRule>& golive_criteria();

// Runs the scenario (and its pilot) and evaluates every registered criterion. A strategy that
// does not fit is a failed criterion, not an error; bad input (a pilot that is not a training
// scenario) is a scenario::ScenarioError.
GoLiveReport evaluate_golive(const scenario::Scenario& scenario, std::vector<std::string> command_catalogs = {});

// The pieces, for tests and for the writers.
GoLiveRun run_golive(const scenario::Scenario& scenario, std::vector<std::string> command_catalogs = {});
std::optional<FabricBandwidth> fabric_bandwidth(const scenario::Scenario& scenario);
ReachablePeak reachable_peak(const scenario::Scenario& scenario, const train::TrainingResult& result);

}  // namespace fathom::report
