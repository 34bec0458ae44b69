// `simulate` for a training workload, as a result object: one step simulated, the scenario's
// expectations evaluated, the cluster it ran on. Writers turn it into the terminal report, the
// JSON report (docs/report.md documents the schema) and a Chrome trace of the step.
#pragma once

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/cost/cost_model.hpp"
#include "models/reliability/availability.hpp"
#include "models/reliability/run_setup.hpp"
#include "models/reliability/whole_run.hpp"
#include "models/workloads/training/data_loading.hpp"
#include "models/workloads/training/step_model.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::sim {
class JsonWriter;
}

namespace fathom::report {

struct ExpectationOutcome {
  scenario::Expectation expectation;
  double actual = 0;  // in SI units, as the expectation's value
  bool pass = false;
};

struct TrainingReport {
  scenario::Scenario scenario;
  std::vector<std::string> command_catalogs;  // the command's --catalog folders (the JSON lists them)
  train::TrainingResult result;
  std::vector<ExpectationOutcome> expectations;         // empty when the strategy does not fit
  std::optional<cost::CostResult> cost;                 // with a `cost:` section, when the strategy fits
  std::optional<train::DataLoading> data;               // with `workload.data`, when it fits
  std::optional<rel::RunSetup> run_setup;               // with `workload.run` or `checkpoint`, when it fits
  std::optional<rel::RunResult> run;                    // with `workload.run`, when it fits
  std::optional<rel::AvailabilityResult> availability;  // with `availability:`
  bool all_pass = true;

  // False when a rank's memory exceeds its HBM: the step was not simulated.
  bool fits() const { return result.simulated; }
};

// Simulates one step and evaluates the expectations. A strategy that does not fit is not an
// error here: fits() says so, and require_fits() turns it into one.
// `cache`: the clusters' topologies and timed collectives kept across calls (a planner's, one
// per thread); null: built for this call alone. The report is the same either way.
TrainingReport evaluate_training(const scenario::Scenario& scenario, std::vector<std::string> command_catalogs = {},
                                 train::CommsCache* cache = nullptr);

// The cost model's usage of a report whose step and run are filled in: the step's, and with a
// whole run its wall time (failures, checkpoints and data stalls included), the spare nodes
// bought beside the cluster and the shared storage tiers it uses, priced for the run.
cost::Usage whole_run_usage(const TrainingReport& report);

// scenario::ScenarioError at workload.parallel (bad input: exit 2) when the strategy does not fit.
void require_fits(const TrainingReport& report);

// The terminal report: scenario, cluster, workload, memory per rank, then (if it fits) the step
// breakdown, throughput, the busiest link, the collectives, the expectations and the fingerprint.
void write_training_summary(std::FILE* out, const TrainingReport& report);
void write_training_json(std::ostream& out, const TrainingReport& report);
void write_training_trace(std::ostream& out, const TrainingReport& report);

// One of the figures an expectation can name (scenario::Expectation::key), in SI units; the
// cost model's figures (scenario::is_cost_expectation) from `cost`.
// One of the figures an expectation can name (scenario::Expectation::key), in SI units, from a
// report whose step (and cost, run and availability, as the key needs) is filled in. With a
// whole run, time_to_train is its mean, effective_training_time its mean and recovery_time its
// p99 recovery; availability is the service's simulated mean; data_load_per_sample is the cold
// read's time per sample and storage_iops the data tier's IOPS for the job.
double training_figure(const std::string& key, const TrainingReport& report);

// The whole run's part of the terminal report and of the JSON report (`data`, `checkpoint` and
// `run`).
void write_run_summary(std::FILE* out, const TrainingReport& report);
void write_run_json(sim::JsonWriter& j, const TrainingReport& report);
// The expectations as the terminal lists them (a heading, then PASS or FAIL, the criterion and the
// actual value in its unit), nothing when there are none; and as the JSON report's
// `expectations` array (key, criterion, actual, pass).
void write_expectations(std::FILE* out, const std::vector<ExpectationOutcome>& expectations);
void write_expectations_json(sim::JsonWriter& j, const std::vector<ExpectationOutcome>& expectations);
// Whether `actual` meets a criterion `op wanted` (op: ">=", "<=", ">", "<", "==").
bool holds(const std::string& op, double actual, double wanted);
// `actual` in the unit its expectation was written in (">= 45%" gives "47.12%").
std::string in_written_unit(double actual, const scenario::Expectation& expectation);

}  // namespace fathom::report
