// `fathom report` on a wafer-scale training cluster (docs/go-live.md, "On a wafer-scale
// cluster"): the weight-streaming step (report/wafer/) held to the same acceptance criteria as a
// GPU cluster's where they apply (MFU, the share of the step computing, memory, the deadline,
// cost and power, the pilot's scaling, the service's P99 latency), each in the wafer's own terms:
// the fabric check is the SwarmX weight stream against its path's line rate, memory is MemoryX
// and the wafer's SRAM. What fathom does not model on wafers (failures and restarts, storage,
// availability) is listed as such.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/golive/golive_report.hpp"
#include "report/golive/golive_writers.hpp"
#include "report/inference/inference_report.hpp"
#include "report/wafer/wafer_report.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {

// How a weight-streaming step spends the systems' dense peak: MFU = busy x efficiency x useful
// share, exactly, and how fast a layer's weights stream against the path's slowest link.
struct WaferPeak {
  double peak_flops = 0;  // one system's dense peak
  double busy = 0;        // the wafers' compute time over the step
  double efficiency = 0;  // cluster.system.compute_efficiency: FLOP/s while computing over peak
  double useful = 0;      // model FLOPs over FLOPs executed (recomputation's cost)
  double ceiling = 0;     // efficiency x useful: MFU with the streams and the update hidden
  // A transformer layer's weights streaming down: bytes over the stream's time, against the
  // slowest hop of the path from MemoryX to a system (MemoryX, SwarmX's links, the system's I/O).
  double layer_stream_bytes = 0;
  double stream_bytes_per_s = 0;
  double line_rate_bytes_per_s = 0;
  int hops = 0;
  double stream_utilisation() const {
    return line_rate_bytes_per_s > 0 ? stream_bytes_per_s / line_rate_bytes_per_s : 0;
  }
};
WaferPeak wafer_peak(const WaferReport& report);

struct WaferGoLiveReport {
  WaferReport cluster;
  WaferPeak peak;
  std::optional<WaferReport> pilot;        // with `report.pilot`: a wafer-scale training scenario
  std::optional<InferenceReport> service;  // with `report.service`: an inference scenario, on GPUs or wafers
  std::vector<Criterion> criteria;
  const scenario::Scenario& scenario() const { return cluster.scenario; }
  bool all_pass() const { return none_failed(criteria); }
};

// The wafer-scale counterpart of golive_criteria(), in the report's order.
struct WaferCriterionRule {
  std::string_view id;
  std::function<std::vector<Criterion>(const WaferGoLiveReport&)> evaluate;
};
const std::vector<WaferCriterionRule>& wafer_golive_criteria();

// Runs the step (and the pilot's, and the service) and evaluates every criterion. A pilot that is
// not a wafer-scale training scenario, or a service that is not an inference one, is a
// scenario::ScenarioError.
WaferGoLiveReport evaluate_wafer_golive(const scenario::Scenario& scenario);

GoLiveDocument wafer_golive_document(const WaferGoLiveReport& report);

}  // namespace fathom::report
