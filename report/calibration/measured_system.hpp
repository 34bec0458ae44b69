// The system a calibration or a validation is about: its node, accelerator, collective
// defaults and fabric, from a scenario, a catalog node, or a calibrated profile, and the same
// system resized to any node count (topo::resized_cluster) for fits and predictions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/fit/collective_fit.hpp"
#include "calibrate/fit/nccl_series.hpp"
#include "models/collectives/collective_params.hpp"
#include "models/hardware/accelerator.hpp"
#include "scenarios/calibration_profile.hpp"
#include "scenarios/resource_estimate.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::report {

struct MeasuredSystem {
  std::string node;  // catalog node name ("" when the scenario writes its own node)
  hw::AcceleratorSpec accelerator;
  coll::CollectiveParams collectives;
  topo::ClusterSpec cluster;  // any node count; resized by cluster_for()
  std::uint64_t seed = 1;
  double max_memory_bytes = scenario::kDefaultMemoryLimit;  // --max-memory: cluster_for() refuses past it
  std::string described;  // one line for reports: "scenario X" or "catalog node dgx-h100, default fabric"
};

MeasuredSystem system_from_scenario(const scenario::Scenario& s);

// A catalog node on fathom's default fabric: a 2-tier fat-tree of radix-64 switches with links
// at the NIC's rate, 1 us per hop and D-mod-K routing (an InfiniBand NDR class fabric); a third tier where two
// cannot hold the nodes. std::invalid_argument for an unknown node, listing the catalog's.
MeasuredSystem system_from_node(const std::string& node);

// The catalog node the texts name through its `measured_as` names ("h100" in a path or device
// name), user catalogs first; "" when none or several nodes do.
std::string guess_node(const std::vector<std::string>& texts);

// The system with N nodes: the measured cluster itself where it has that many, else resized.
// Throws std::invalid_argument when its topology alone would pass system.max_memory_bytes.
calib::ClusterForNodes cluster_for(const MeasuredSystem& system);

// Refuses, naming the file, a measured series whose simulation (the system resized to its node
// count, and the transfer DAG of its largest size) would pass system.max_memory_bytes.
void require_series_within_memory(const MeasuredSystem& system, const calib::BusbwSeries& series);

}  // namespace fathom::report
