// Scenario: one YAML file describing a cluster and what runs on it, loaded into plain
// structs. The loader converts units once, rejects unknown keys with a "did you mean",
// and checks the cluster by laying out its fabric, so that every mistake is reported as a
// ScenarioError at its file:line:column before anything is simulated.
//
// Sections (docs/scenarios.md lists every key with its unit and default):
//   seed      the run's random seed (default 1)
//   cluster   nodes, node (GPUs, NICs, NVLink, PCIe) and fabric (fat-tree, rail-optimised)
//   workload  kind: traffic (generated patterns or a CSV of flows), or kind: nccl-tests
//             (the collective sweep `fathom nccl-tests` runs), kind: training (one step of a
//             training job), kind: jobs (a trace of jobs through a scheduler, docs/jobs.md), or
//             kind: inference (a service's replicas under a stream of requests, docs/inference.md)
//   On a wafer-scale cluster (`cluster.kind: wafer-scale`: systems, MemoryX, SwarmX) the workload
//   is kind: training, run by weight streaming, or kind: inference, the weights resident in the
//   wafers' SRAM (docs/wafer.md).
//   collectives  optional: alpha, launch, chunks and per-algorithm link efficiencies
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/cost/cost_spec.hpp"
#include "models/hardware/accelerator.hpp"
#include "models/reliability/availability.hpp"
#include "models/reliability/failure_spec.hpp"
#include "models/reliability/run_setup.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/traffic/traffic_pattern.hpp"
#include "models/workloads/training/checkpoint.hpp"
#include "models/workloads/training/data_loading.hpp"
#include "models/workloads/training/training_spec.hpp"
#include "models/workloads/wafer/wafer_cost.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/inference_workload.hpp"
#include "scenarios/jobs_workload.hpp"
#include "scenarios/plan_section.hpp"
#include "scenarios/report_section.hpp"
#include "sim/time.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::scenario {

// One row of a flows CSV (`id,src,dst,bytes,start_s`), with its place in the file.
struct FlowRow {
  std::uint64_t id = 0;
  std::string src;
  std::string dst;
  double bytes = 0;
  sim::SimTime start;
  Location where;  // file and line of the row
};

enum class EndpointKind { kNic, kGpu };

struct TrafficWorkload {
  bool from_file = false;
  workload::TrafficSpec generated;  // when !from_file
  std::vector<FlowRow> rows;        // when from_file
  EndpointKind endpoints = EndpointKind::kNic;
};

// kWaferTraining: `kind: training` on a wafer-scale cluster (weight streaming, docs/wafer.md).
enum class WorkloadKind { kTraffic, kNcclTests, kTraining, kJobs, kInference, kWaferTraining };

// One go-live criterion of `expect:`, e.g. `mfu: ">= 0.40"` or `step_time: "<= 10s"`.
struct Expectation {
  std::string key;   // "mfu", "step_time", ...
  std::string op;    // ">=", "<=", ">", "<", "=="
  double value = 0;  // SI: seconds, bytes, a fraction, TFLOP/s, tokens/s
  std::string text;  // as written
  Location where;
};

// The figures `expect:` can name, with the quantity each is written in.
inline constexpr std::string_view kExpectKeys[] = {"mfu",
                                                   "step_time",
                                                   "tokens_per_s",
                                                   "time_to_train",
                                                   "model_tflops_per_gpu",
                                                   "hardware_tflops_per_gpu",
                                                   "peak_memory_per_rank",
                                                   "capex",
                                                   "tco",
                                                   "run_cost",
                                                   "it_power",
                                                   "facility_power",
                                                   "effective_training_time",
                                                   "recovery_time",
                                                   "availability",
                                                   "data_load_per_sample",
                                                   "storage_iops",
                                                   "p99_ttft",
                                                   "p99_tpot",
                                                   "p99_e2e",
                                                   "throughput"};

// Whether `key` names a figure of the cost model, which needs a `cost:` section.
inline bool is_cost_expectation(std::string_view key) {
  return key == "capex" || key == "tco" || key == "run_cost" || key == "it_power" || key == "facility_power";
}

// Whether `key` names a figure of an inference service (workload kind: inference).
inline bool is_inference_expectation(std::string_view key) {
  return key == "p99_ttft" || key == "p99_tpot" || key == "p99_e2e" || key == "throughput";
}

// Defaults of `fathom nccl-tests` (its flags override them), spelled as nccl-tests' -b -e -f.
struct NcclTestsWorkload {
  std::string op = "all_reduce";  // all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv
  std::int64_t min_bytes = 8;
  std::int64_t max_bytes = std::int64_t{8} << 30;
  int step_factor = 2;
};

struct Scenario {
  std::string file;
  std::uint64_t seed = 1;
  topo::ClusterSpec cluster;
  WorkloadKind workload = WorkloadKind::kTraffic;
  TrafficWorkload traffic;       // when workload is kTraffic
  NcclTestsWorkload nccl_tests;  // when workload is kNcclTests
  train::TrainingSpec training;  // when workload is kTraining
  JobsWorkload jobs;             // when workload is kJobs
  InferenceWorkload inference;   // when workload is kInference
  // A wafer-scale cluster (`cluster.kind: wafer-scale`) and its training workload. Serving on one
  // (kInference) sees each system as a node of one accelerator (models/workloads/wafer/
  // wafer_serving.hpp), in `cluster` and `accelerator`; training leaves `cluster` at its unused defaults.
  bool wafer_scale = false;                 // `cluster.kind: wafer-scale`
  wafer::WaferCluster wafer;                // when wafer_scale
  wafer::WaferTrainingSpec wafer_training;  // when workload is kWaferTraining
  wafer::WaferPrices wafer_prices;          // `cost.memoryx_price`, with a cost: section
  // A whole run (docs/run.md): the storage tiers, the run's length and replications, its
  // checkpoints and what fails.
  std::vector<storage::TierSpec> storage;
  std::optional<rel::RunSpec> run;                  // `workload.run` (training)
  std::optional<train::CheckpointSpec> checkpoint;  // `workload.checkpoint` (training)
  std::optional<train::DataSpec> data;              // `workload.data` (training): what each step reads
  rel::FailureSpec failures = rel::default_failures();
  std::optional<rel::ServiceSpec> availability;  // `availability:` a service's (training scenarios)
  // The accelerator: `hardware.accelerator`, else the catalog node's (cluster.node).
  hw::AcceleratorSpec accelerator;
  std::vector<Expectation> expectations;
  std::optional<cost::CostSpec> cost;  // `cost:`, with the price list's figures filled in
  std::optional<PlanSpec> plan;        // `plan:`, what `fathom plan` searches
  ReportSpec report;                   // `report:`, what `fathom report` holds the cluster to
  std::string output_json;             // `output.json` (a path, relative to the scenario's folder)
  std::string output_trace;            // `output.trace`
  coll::CollectiveParams collectives;
  // Where each key that was read sits in the file, by key path: later checks (a host name
  // in a flows file, a fabric that cannot be built) point back at the input.
  std::map<std::string, Location> locations;
  std::map<std::string, std::string> written;  // the scalar text of each key read, by key path
  // The catalog entries the scenario named (or extended), each with the file it came from: a
  // user catalog's (`catalogs:`, --catalog) or the built-in one's.
  struct CatalogEntry {
    std::string kind;  // "node", "accelerator" or "model"
    std::string name;
    std::string file;
  };
  std::vector<CatalogEntry> catalog_entries;
  std::vector<std::string> catalog_folders;  // the scenario's own `catalogs:`, resolved
  // What the run read: the --set overrides as given, and every scalar of the document after
  // them, by key path ("cluster.fabric.links[0].bandwidth") as written, in document order.
  std::vector<std::string> overrides;
  std::vector<std::pair<std::string, std::string>> document;
};

// Loads `file` with `--set` overrides applied. Throws ScenarioError.
Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides = {});
// The same from `text`, the file's contents read already (a planner loading thousands of
// variants of one file reads it once); `file` names it in messages and resolves relative paths.
Scenario load_scenario_text(const std::string& file, std::string_view text,
                            const std::vector<std::string>& overrides = {});

// The flows of a traffic workload on a built topology: generated from the seed, or the
// CSV's rows with host names resolved (an unknown name is a ScenarioError at its row).
// None for a workload of another kind.
std::vector<net::FlowRequest> traffic_flows(const Scenario& scenario, const topo::Topology& topology);

// A time the model could not hold (sim::TimeOutOfRange: beyond 292 years) as the scenario's
// error, located at the slowest rate of the cluster, which is what makes times that long.
[[noreturn]] void refuse_beyond_clock(const Scenario& scenario, const sim::TimeOutOfRange& error);
// The same for a serving iteration too long for the clock, located at `workload.serving` (its
// host overheads, or the accelerator's rates, make iterations that long).
[[noreturn]] void refuse_serving_beyond_clock(const Scenario& scenario, const sim::TimeOutOfRange& error);

// Endpoints a pattern runs over, in node order: every NIC (n0.nic0, n0.nic1, n1.nic0, ...)
// or every GPU.
std::vector<topo::VertexId> traffic_endpoints(const topo::Topology& topology, EndpointKind kind);

}  // namespace fathom::scenario
