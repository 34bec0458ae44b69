// A candidate of an inference service's plan (docs/plan.md, "Planning a service"): the service
// simulated as `fathom simulate` runs it with the candidate's values, held to the workload's SLO
// at P99 and, with plan.fewest_replicas, simulated at the replica counts a search tries until it
// finds the fewest that meet the SLO.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "models/cost/cost_model.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "plan/planner.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::plan {

// Loads the candidate's scenario with `replicas` (when given) set as workload.serving.replicas,
// after every other value; on failure returns nothing and sets `error` to the loader's message.
using ServiceLoader = std::function<std::optional<scenario::Scenario>(std::optional<int> replicas, std::string& error)>;

// Evaluates one candidate into `e` (its index and values untouched).
//
// The search for the fewest replicas assumes that more replicas never raise the P99 latency, as
// holds for a router spreading a fixed stream of requests over more identical engines: it doubles
// from `from` until the SLO is met (or the plan's `to`, or the largest count the cluster holds, is
// reached) and then bisects between the last count that missed and the first that met.
void evaluate_service(const ServiceLoader& load, const scenario::PlanSpec& plan, Evaluated& e);

// Why `m` misses `slo` at P99 ("P99 TPOT 61.2 ms over the SLO's 50 ms"; every latency the SLO
// sets that it misses), or empty when it meets it. Unfinished requests miss it too.
std::string slo_miss(const infer::ServiceMetrics& m, const infer::Slo& slo);

// Holds a simulated candidate (status feasible so far) to the plan's budget and power limit.
void apply_cost_constraints(const scenario::PlanSpec& plan, Evaluated& e);

// Holds a simulated training candidate (status feasible so far, its time to train filled in) to
// the plan's deadline, then to its budget and power limit.
void apply_run_constraints(const scenario::PlanSpec& plan, Evaluated& e);

// A priced candidate's cost figures.
void record_cost(const cost::CostResult& cost, Evaluated& e);

// Seconds as days in a plan's reasons ("12.34 days").
std::string duration_days(double seconds);

}  // namespace fathom::plan
