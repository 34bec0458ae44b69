// `simulate` for an inference workload: the service's requests through its replicas on the
// scenario's cluster (models/workloads/inference/), the figures docs/inference.md defines, and the
// expectations (p99_ttft, p99_tpot, p99_e2e, throughput) evaluated.
#pragma once

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "models/cost/cost_model.hpp"
#include "models/workloads/inference/iteration_model.hpp"
#include "models/workloads/inference/service.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::sim {
class JsonWriter;
}  // namespace fathom::sim

namespace fathom::report {

struct InferenceReport {
  scenario::Scenario scenario;
  infer::ServiceRun run;
  infer::ServiceMetrics metrics;
  // One request of the mean prompt alone on a replica: its prefill and its first decode (seconds),
  // the roofline's own figures before any queueing or batching.
  double alone_prefill_s = 0;
  double alone_decode_s = 0;
  // With an autoscaler reading the model from a storage tier: the load when k replicas start
  // together (index k - 1).
  std::vector<sim::SimTime> model_load;
  // GPU-hours the service held over the run: the decode (or only) pool's replicas while up, the
  // prefill pool's for the whole run.
  double gpu_hours = 0;
  // With `cost:`: the cluster priced for this service (report::inference_usage).
  std::optional<cost::CostResult> cost;
  // The service's GPUs at the cluster's cost per GPU-hour, per hour of the run (0 without cost:).
  double usd_per_hour() const;
  std::vector<ExpectationOutcome> expectations;
  bool all_pass = true;
  // A service on a shared cluster (a jobs scenario's `services`): its replicas waited for GPUs.
  bool shared = false;
};

// Iterations a timeline draws, over every replica (each keeps its first share): a few hundred
// megabytes of trace, which Perfetto opens.
inline constexpr std::int64_t kTraceIterations = 200'000;

struct InferenceOptions {
  bool record_iterations = false;  // keep iterations for the timeline (--trace): kTraceIterations in all
  unsigned threads = 1;            // the engine's parallel scheduler when above 1 and the service has a
                                   // dispatch delay (its lookahead); one thread otherwise
};

// One replica's iteration model on the scenario's accelerator; its tensor-parallel all-reduces are
// timed by the collective model on one node of the cluster, at the batch sizes of a grid (powers
// of two up to max_batched_tokens) and interpolated between them; with pp > 1, its stages' sends
// over gpu_links().
infer::IterationModel replica_model(const scenario::Scenario& scenario);
// The same for another engine on the scenario's model and accelerator (the prefill pool's).
infer::IterationModel replica_model(const scenario::Scenario& scenario, const infer::ServingSpec& serving);

// One GPU's links to another GPU, as a replica's transfers use them: NVLink within a node (at the
// collectives' ring efficiency), its share of the node's NICs between nodes (at the NIC
// efficiency), each transfer after the collectives' software latency (alpha).
struct GpuLinks {
  double same_node_bytes_per_s = 0;
  double cross_node_bytes_per_s = 0;
  double latency_s = 0;
};
GpuLinks gpu_links(const scenario::Scenario& scenario);

// With an autoscaler whose model_load names a storage tier: the time k replicas (index k - 1, up
// to max_replicas) take to read the model's weights (every replica's shards) from it together,
// on the storage model (rel::tier_transfer_s); empty without one.
std::vector<sim::SimTime> model_load_times(const scenario::Scenario& scenario);

// The service's spec from an inference scenario: its engine, cache, dispatch delay, swap link and
// autoscaler (with the model's load from storage); not its disaggregation, which the caller adds.
infer::ServiceSpec service_spec(const scenario::Scenario& scenario);
// report.alone_prefill_s and alone_decode_s: the mean prompt alone on a replica timed by `model`.
void alone_times(InferenceReport& report, const infer::IterationModel& model);

// Runs the service. A scenario whose workload is not inference is bad input (scenario::ScenarioError
// at workload.kind).
InferenceReport evaluate_inference(scenario::Scenario scenario, const InferenceOptions& options = {});

// The figure an expectation names, in SI units: p99_ttft, p99_tpot, p99_e2e (seconds), throughput
// (output tokens per second); with cost:, capex, tco, run_cost (the service over the simulated span),
// it_power and facility_power.
double inference_figure(const std::string& key, const InferenceReport& report);

void write_inference_summary(std::FILE* out, const InferenceReport& report);
// Its requests, latency, throughput, goodput, KV cache and replicas: the summary's middle, which a
// shared cluster's report prints for each service.
void write_service_figures(std::FILE* out, const InferenceReport& report);
// The JSON report (docs/report.md): the scenario, the service, the memory, and `inference`.
void write_inference_json(std::ostream& out, const InferenceReport& report);
// The JSON report's `inference` member (a key and its object), which a shared cluster's report
// writes for each service.
void write_inference_figures(sim::JsonWriter& j, const InferenceReport& report);
// One row per request (--requests-out).
void write_requests_csv(std::ostream& out, const InferenceReport& report);
// Its header, and its rows each after `lead` (a shared cluster's CSV puts the service's name
// first).
inline constexpr std::string_view kRequestsCsvHeader =
    "request,arrival_s,prompt_tokens,output_tokens,replica,first_token_s,end_s,ttft_s,tpot_s,e2e_s,preemptions,"
    "meets_slo";
void write_request_rows(std::ostream& out, const InferenceReport& report, std::string_view lead);
// A Perfetto timeline: a track per replica with a slice per iteration and counters of its batch
// and KV cache (--trace; needs InferenceOptions::record_iterations).
void write_inference_trace(std::ostream& out, const InferenceReport& report);

}  // namespace fathom::report
