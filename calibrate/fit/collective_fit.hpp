// Fits the software costs and link efficiencies of fathom's own collective model
// (coll::CollectiveParams: per-step latency alpha, launch cost, per-slice step cost, and the
// fractions of NVLink and NIC line rate each algorithm reaches) to measured nccl-tests bus
// bandwidths. The model fitted is the one the simulation runs: every point is predicted by the
// algorithm's alpha-beta closed form on the measured system (CollectiveTimer::closed_form, equal
// to the simulated DAG within 0.1% for one collective alone), so a fit on 1 and 2 nodes
// predicts 4, 8 or 64 nodes by simulating them, never by a curve per node count.
//
// Only parameters the data constrain are fitted. A parameter whose effect on the predictions is
// nil (NVLink efficiency when every point is NIC-bound) or indistinguishable from those already
// chosen (launch and alpha when every point has the same number of algorithm steps) keeps its
// start value and is listed in `not_identified`, so the profile says it is the catalog's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/fit/nccl_series.hpp"
#include "models/collectives/collective_params.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::calib {

// The measured system with `nodes` nodes (e.g. topo::resized_cluster of one description).
using ClusterForNodes = std::function<topo::ClusterSpec(int nodes)>;

struct CollectiveFitOptions {
  // Points below this size are left out: the acceptance criteria start at 1 MiB, and below it
  // NCCL's LL and LL128 protocols, which fathom does not model, take over.
  std::int64_t min_bytes = std::int64_t{1} << 20;
  std::uint64_t seed = 1;  // ECMP hash seed of the predictions
  // Who chooses each point's algorithm and protocol in the fit: size thresholds, searched among
  // the measured sizes (the default), or NCCL's cost model (nccl_tuner.hpp), which needs no
  // search: every point runs the pair NCCL's model picks for it, and the profile says
  // `tuner: nccl`. A profile's sweep of every size (Vidur's, 8 KiB apart) is fitted this way.
  coll::Tuner tuner = coll::Tuner::kThresholds;
};

// Predicted busbw (GB/s) of every point of every series of at least options.min_bytes, in
// series order: closed forms (`simulate` false) or the simulation (true).
std::vector<double> predict_busbw(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                  const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                  bool simulate);

// The measured busbw of the same points, in the same order.
std::vector<double> measured_busbw(const std::vector<BusbwSeries>& series, const CollectiveFitOptions& options);

struct CollectiveFit {
  coll::CollectiveParams params;            // the start parameters with the fitted ones replaced
  FitResult result;                         // over every point used, in series order
  std::vector<std::string> fitted;          // names of the fitted parameters (FitParameter::name)
  std::vector<std::string> not_identified;  // candidates the data do not constrain: kept at their start values
};

// Parameter names: alpha_ns, step_ns, nvls_step_ns, ll_alpha_ns, ll128_alpha_ns, launch_ns,
// ring, tree, nvls, nic; and the discrete choices, listed in `fitted`, not among the result's
// parameters: nvls_adaptive_chunk where NVLS ran (fitted both ways, the better kept);
// nvls_min_bytes and tree_max_bytes where a log leaves the algorithm to NCCL and moving the
// threshold over the measured sizes changes some point's algorithm; ll_max_bytes and
// ll128_max_bytes where a non-tree algorithm chooses its protocol by size, tree_ll_max_bytes and
// tree_ll128_max_bytes where the double binary tree does (each searched over the measured
// sizes, the continuous parameters refitted for every candidate). Throws
// std::invalid_argument when no series has a point of at least min_bytes.
CollectiveFit fit_collectives(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                              const coll::CollectiveParams& start, const CollectiveFitOptions& options = {});

}  // namespace fathom::calib
