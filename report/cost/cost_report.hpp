// The cost model applied to a scenario (docs/cost.md): the cluster's census priced by the
// scenario's `cost:` section, with the usage a simulated training step gives it, and its
// writers: a terminal table and the JSON report's `cost` section.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "models/cost/cost_model.hpp"
#include "models/workloads/training/step_model.hpp"
#include "scenarios/scenario.hpp"
#include "sim/output/json_writer.hpp"
#include "topologies/topology.hpp"

namespace fathom::report {

// The scenario's cluster priced with its `cost:` section (which must be there) for `usage`.
cost::CostResult price_cluster(const scenario::Scenario& scenario, const cost::Usage& usage);
// The same, counting the cluster `built` (topo::build_cluster of the scenario's cluster, built
// already by the caller).
cost::CostResult price_cluster(const scenario::Scenario& scenario, const cost::Usage& usage,
                               const topo::Topology& built);

// What a simulated training step tells the cost model: the accelerators it uses, how busy they
// are (the stages' compute time over the step, averaged), its tokens and, with a token budget,
// the steps of the run.
cost::Usage training_usage(const scenario::Scenario& scenario, const train::TrainingResult& result);

// What an inference service tells the cost model: its GPUs (the mean number up over the run when
// an autoscaler changes them), how busy its replicas were, and the run as one step whose tokens
// are the output tokens it generated, so that the per-run figure is the service's cost over the
// simulated span and the per-million-token figure its cost per output token. It has no run: the
// per-run figures stay 0.
cost::Usage inference_usage(const scenario::Scenario& scenario, double gpu_hours, double busy_fraction,
                            double duration_s, double output_tokens);

// A cluster without a workload (fathom topology): every accelerator busy, no step.
cost::Usage peak_usage(const scenario::Scenario& scenario);

// "$1.234M", "$56.7k", "$812": four significant digits, in a form a reader takes in at a glance.
std::string usd_text(double usd);
// "812.5 kW", "12.3 MW".
std::string kw_text(double watts);

// The terminal table: the bill, power, operating cost, TCO and the per-step and per-run figures.
// `step`: what one step of the usage is, in words ("step"; an inference service's "the simulated span");
// `accelerator`: what the cost per hour is of ("GPU"; a wafer-scale cluster's "system").
void write_cost_summary(std::FILE* out, const cost::CostResult& cost, const cost::CostSpec& spec,
                        const std::string& step = "step", const std::string& accelerator = "GPU");

// The JSON report's `cost` object (docs/report.md).
void write_cost_json(sim::JsonWriter& j, const cost::CostResult& cost, const cost::CostSpec& spec);

}  // namespace fathom::report
