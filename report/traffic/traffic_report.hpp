// `simulate` for a traffic workload: the flows run over the cluster, and what the terminal
// shows of it (makespan, flow completion times, the busiest link).
#pragma once

#include <cstddef>
#include <cstdio>

#include "models/network/flow_transfer.hpp"
#include "report/traffic/traffic_run.hpp"

namespace fathom::report {

struct FlowCompletion {
  double mean_s = 0, p50_s = 0, p99_s = 0, max_s = 0;
};

struct TrafficReport {
  PreparedTraffic traffic;
  net::TransferResult result;
  FlowCompletion completion;  // of every flow, from its start
  double total_bytes = 0;
  std::size_t busiest_link = 0;  // the link with the most bytes per unit of capacity
};

// Runs the scenario's flows. A scenario whose workload is not traffic is bad input
// (scenario::ScenarioError at workload.kind). `link_timeline` records every change of a link's
// load (TransferResult::link_loads). `threads` > 1 runs the fabric's independent parts side by
// side on the parallel scheduler; the report is the same for any number.
TrafficReport evaluate_traffic(scenario::Scenario scenario, bool link_timeline, unsigned threads = 1);

// The human report: scenario, cluster, workload, figures, fingerprint.
void write_traffic_summary(std::FILE* out, const TrafficReport& report);

}  // namespace fathom::report
