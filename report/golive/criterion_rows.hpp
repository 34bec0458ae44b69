// Pieces of go-live criteria that every cluster kind's rules share (criteria.cpp for a GPU
// cluster, wafer_criteria.cpp for a wafer-scale one): a row held to the scenario's own `expect:`,
// the cost and power rows, the inference service's rows, and the formatting they use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/cost/cost_model.hpp"
#include "report/golive/golive_report.hpp"
#include "report/inference/inference_report.hpp"
#include "report/training/training_report.hpp"

namespace fathom::report::criteria {

std::string percent(double fraction);                  // "38.0%"
std::string number(const char* format, double value);  // printf of one value
std::string count_text(double n);                      // "500K", "1.2M", "950"

// The ratio that passes at 1 or more: how far past (or short of) its target a figure is.
double margin(const std::string& op, double actual, double wanted);
Verdict verdict(bool pass);

// The outcome of the scenario's `expect: key`, or nullptr without one.
const ExpectationOutcome* find(const std::vector<ExpectationOutcome>& outcomes, const std::string& key);

// A row held to the scenario's own `expect:` criterion.
Criterion from_expectation(std::string name, const ExpectationOutcome& e);

// A figure held to `expect: key` when the scenario has one, else to the report's own target
// (`report.key`): predicted, target and verdict filled in, note and remedy left to the caller.
Criterion held_to(std::string name, const std::vector<ExpectationOutcome>& outcomes, const std::string& key,
                  double actual, const std::string& op, double target, const std::string& target_text,
                  std::string predicted);

// The time to train a token budget: held to `expect: time_to_train`, else reported.
Criterion time_to_train_row(const std::vector<ExpectationOutcome>& outcomes, double predicted_s);

// Capital cost, TCO, IT and facility power and, with a token budget (`priced_run`), the cost of
// the run: each held to its `expect:` key or reported.
std::vector<Criterion> cost_rows(const cost::CostResult& cost, const std::vector<ExpectationOutcome>& outcomes,
                                 bool priced_run);

// Every `expect:` criterion not among `shown` (the keys other rows hold the cluster to).
std::vector<Criterion> remaining_expectations(const std::vector<ExpectationOutcome>& outcomes,
                                              const std::vector<std::string>& shown);

// The inference service the cluster will also run (`report.service`): its P99 time to first
// token and per output token against its SLO, and its throughput per accelerator (a GPU, or a
// wafer for a service on wafers); "not evaluated" rows without one.
std::vector<Criterion> service_rows(const std::optional<InferenceReport>& service);

}  // namespace fathom::report::criteria
