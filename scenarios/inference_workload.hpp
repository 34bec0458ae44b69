// `workload: {kind: inference}`: an inference service (docs/inference.md): the model, how its
// replicas serve it (`serving`), the requests it receives (`requests`: an arrival process with
// length distributions, or a trace) and the latency it promises (`slo`). The loader draws or
// reads the requests and checks that the model, its KV cache and the longest request fit a
// replica, so that what reaches the model is a list of requests every replica can serve.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/inference/requests.hpp"
#include "models/workloads/inference/service.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "models/workloads/training/transformer.hpp"
#include "scenarios/errors.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

class MapReader;

enum class RequestSource { kGenerated, kAzureLlm };

struct InferenceWorkload {
  train::TransformerSpec model;
  infer::ServingSpec serving;
  sim::SimTime dispatch_delay;  // `serving.dispatch_delay`
  RequestSource source = RequestSource::kGenerated;
  infer::RequestSpec generated;  // when generated
  // A trace, as the scenario wrote it.
  std::string trace_file;        // resolved against the scenario's folder
  double speedup = 1;            // arrival gaps divided by it
  sim::SimTime trace_start;      // the window's start in the trace's own clock (from its first row)
  sim::SimTime trace_length;     // the window's length; 0: to the end
  std::int64_t trace_limit = 0;  // at most this many requests of the window; 0: all
  infer::Slo slo;
  // `autoscaler:` (enabled when present); its `load` is left empty here: the model's load time
  // from `model_load_tier` (a tier of the scenario's `storage:`, or none) is the storage model's.
  infer::AutoscalerSpec autoscaler;
  std::string model_load_tier;
  // `disaggregation:` a prefill pool beside the serving replicas (which then only decode); 0
  // prefill replicas: none. The pool's engine is `serving`'s with its own tp.
  int prefill_replicas = 0;
  infer::ServingSpec prefill;
  infer::KvBudget prefill_budget;
  // Each replica's node: the decode (or only) pool's replicas packed from node 0, a node's GPUs in
  // order; the prefill pool's from the next whole node.
  std::vector<std::int32_t> node_of;

  // What the loader made of it.
  std::vector<infer::Request> requests;  // in arrival order, the first at or after time 0
  std::vector<int> request_lines;        // trace: each request's line in the file
  std::int64_t trace_requests = 0;       // trace: rows in the whole file
  infer::KvBudget budget;                // one replica's memory, per GPU

  // A decode (or only) replica's GPUs: tp x pp.
  int gpus_per_replica() const { return serving.tp * serving.pp; }
};

// GPU `k` of replica `replica` (the decode pool's, then the prefill pool's, as node_of numbers
// them) as (node, GPU of the node): a replica takes its GPUs in order from its first node, a
// share of that node or whole nodes after it.
std::pair<std::int32_t, int> replica_gpu(const InferenceWorkload& w, std::size_t replica, int k, int gpus_per_node);

// Reads `workload` (kind: inference) but its model, which the caller has read into w.model.
// `accelerator` and the cluster's shape check that replicas fit; `seed` draws generated requests.
// Records each key's location in `locations`; `tiers` are the scenario's storage tiers, which
// `autoscaler.model_load` may name. Throws ScenarioError.
void read_inference_workload(InferenceWorkload& w, MapReader& workload, const std::string& scenario_file,
                             const hw::AcceleratorSpec& accelerator, int gpus_per_node, int nodes, std::uint64_t seed,
                             std::map<std::string, Location>& locations, const std::vector<std::string>& tiers = {});

}  // namespace fathom::scenario
