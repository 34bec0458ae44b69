// The scenario's `report:` section (docs/go-live.md): what `fathom report` holds the planned
// cluster to. The pilot it was proven on and the targets of the go-live criteria that neither
// `expect:` nor a deployment guide fixes. A plain config struct; report/golive/ evaluates it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

struct ReportSpec {
  std::string pilot;  // the pilot's scenario file, resolved against this scenario's folder; empty: none
  // The inference service the cluster will also run (a scenario with workload kind: inference),
  // resolved the same way; empty: none. Its P99 latency and throughput per GPU are rows.
  std::string service;
  // The targets. A scenario's `expect: mfu` replaces `mfu` (the scenario's own word wins).
  double mfu = 0.38;                      // model FLOP utilisation at least this
  double gpu_busy = 0.80;                 // the accelerators compute at least this share of the step
  double bandwidth = 0.80;                // inter-node all-reduce bus bandwidth over the NICs' line rate
  double memory_headroom = 0.10;          // share of usable HBM left free at the peak rank
  double scaling = 0.90;                  // per-GPU throughput of this cluster over the pilot's
  double bandwidth_bytes = 1 << 30;       // the all-reduce message of the bandwidth check
  int bandwidth_nodes = 32;               // the nodes it spans (the first ones; at most the cluster's)
  double recovery_time_s = 300;           // p99 recovery from a failure at most this (a whole run)
  double effective_training_time = 0.90;  // share of a whole run's wall time on kept steps
  double availability = 0.9995;           // a service's share of time up
  double storage_iops = 500e3;            // the data tier's IOPS for the job
  double data_load_per_sample_s = 1e-3;   // a cold read's time per sample
  Location where;                         // of `report:`, or the file's start without one
};

// The declared keys of `report:` (docs/parameters.md); `pilot` and `service` are read beside them.
const std::vector<params::Parameter<ReportSpec>>& report_parameters();

// Reads `report:`; `scenario_file` anchors a relative pilot or service path. `note` is called with every
// value read.
ReportSpec read_report_section(MapReader& section, const std::string& scenario_file,
                               const std::function<void(const ValueReader&)>& note);

}  // namespace fathom::scenario
