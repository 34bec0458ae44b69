#include "calibrate/fit/collective_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "models/collectives/collective_timer.hpp"
#include "models/collectives/nccl_tests.hpp"

namespace fathom::calib {

namespace {

// The candidates, in the order the identifiability check considers them: alpha before launch,
// so that when the data cannot tell them apart (one step count everywhere) alpha is fitted and
// launch keeps its start value.
enum Index { kAlpha, kStep, kNvlsStep, kLaunch, kRing, kTree, kNvls, kNic, kCount };
constexpr const char* kNames[kCount] = {"alpha_ns", "step_ns", "nvls_step_ns", "launch_ns",
                                        "ring",     "tree",    "nvls",         "nic"};
bool is_time(int j) { return j == kAlpha || j == kStep || j == kNvlsStep || j == kLaunch; }

std::vector<double> to_vector(const coll::CollectiveParams& p) {
  return {static_cast<double>(p.alpha_ns),
          static_cast<double>(p.step_ns),
          static_cast<double>(p.nvls_step_ns),
          static_cast<double>(p.launch_ns),
          p.efficiency.ring,
          p.efficiency.tree,
          p.efficiency.nvls,
          p.efficiency.nic};
}

coll::CollectiveParams from_vector(coll::CollectiveParams p, const std::vector<double>& x) {
  p.alpha_ns = std::llround(x[kAlpha]);
  p.step_ns = std::llround(x[kStep]);
  p.nvls_step_ns = std::llround(x[kNvlsStep]);
  p.launch_ns = std::llround(x[kLaunch]);
  p.efficiency.ring = x[kRing];
  p.efficiency.tree = x[kTree];
  p.efficiency.nvls = x[kNvls];
  p.efficiency.nic = x[kNic];
  return p;
}

// Calls `each(series, timer, ranks, point)` for every point of at least min_bytes, building one
// timer per series on the system of its node count.
template <typename Each>
void for_each_point(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                    const coll::CollectiveParams& params, const CollectiveFitOptions& options, Each&& each) {
  for (const BusbwSeries& s : series) {
    const topo::ClusterSpec cluster = cluster_for(s.nodes);
    if (cluster.nodes < s.nodes || cluster.node.gpus < s.gpus_per_node) {
      throw std::invalid_argument(s.file + ": measured on " + std::to_string(s.nodes) + " node(s) x " +
                                  std::to_string(s.gpus_per_node) + " GPU(s), but the system has " +
                                  std::to_string(cluster.nodes) + " x " + std::to_string(cluster.node.gpus));
    }
    coll::CollectiveTimer timer(cluster, params, options.seed);
    const auto ranks = coll::nccl_group_ranks(timer.topology(), s.nodes, s.gpus_per_node);
    for (const BusbwPoint& p : s.points) {
      if (p.bytes >= options.min_bytes) each(s, timer, ranks, p);
    }
  }
}

// The efficiencies the points' algorithms run at (nvlink_efficiency), plus the NIC's where a
// series spans nodes.
std::set<int> efficiencies_used(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                const coll::CollectiveParams& params, const CollectiveFitOptions& options) {
  std::set<int> used;
  for_each_point(cluster_for, series, params, options,
                 [&](const BusbwSeries& s, coll::CollectiveTimer& timer, const auto& ranks, const BusbwPoint& p) {
                   const auto t = coll::closed_form_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm).timing;
                   switch (t.algorithm) {
                     case coll::Algorithm::kNvls:
                     case coll::Algorithm::kNvlsTree:
                       used.insert(kNvls);
                       break;
                     case coll::Algorithm::kDoubleBinaryTree:
                       used.insert(kTree);
                       break;
                     default:
                       used.insert(kRing);
                   }
                   if (s.nodes > 1) used.insert(kNic);
                 });
  return used;
}

// Greedy identifiability: a candidate is kept when its column of d(relative residual)/d(x),
// scaled by x, has a part of at least kIndependent of its length outside the span of the
// columns kept before it (Gram-Schmidt), and is not nil.
constexpr double kIndependent = 1e-2;

std::vector<bool> identifiable(const std::function<std::vector<double>(const std::vector<double>&)>& predict,
                               const std::vector<double>& measured, const std::vector<double>& x0,
                               const std::vector<int>& candidates) {
  const std::vector<double> base = predict(x0);
  const auto n = static_cast<Eigen::Index>(measured.size());
  std::vector<Eigen::VectorXd> kept;
  std::vector<bool> keep(kCount, false);
  for (int j : candidates) {
    // A step of 5% (at least 200 ns for a time): large against the model's 1 ns rounding.
    const double h = std::max(0.05 * std::abs(x0[j]), is_time(j) ? 200.0 : 1e-3);
    std::vector<double> x = x0;
    x[j] += h;
    const std::vector<double> moved = predict(x);
    Eigen::VectorXd column(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      column(i) = (moved[i] - base[i]) / measured[i] / h * std::max(std::abs(x0[j]), h);
    }
    const double length = column.norm();
    if (!(length > 1e-6)) continue;
    Eigen::VectorXd rest = column;
    for (const auto& q : kept) rest -= q.dot(rest) * q;
    if (rest.norm() < kIndependent * length) continue;
    kept.push_back(rest.normalized());
    keep[j] = true;
  }
  return keep;
}

}  // namespace

std::vector<double> predict_busbw(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                  const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                  bool simulate) {
  std::vector<double> out;
  for_each_point(cluster_for, series, params, options,
                 [&](const BusbwSeries& s, coll::CollectiveTimer& timer, const auto& ranks, const BusbwPoint& p) {
                   const coll::NcclSize size =
                       simulate ? coll::simulate_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm)
                                : coll::closed_form_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm);
                   out.push_back(size.busbw_gbps);
                 });
  return out;
}

std::vector<double> measured_busbw(const std::vector<BusbwSeries>& series, const CollectiveFitOptions& options) {
  std::vector<double> out;
  for (const BusbwSeries& s : series) {
    for (const BusbwPoint& p : s.points) {
      if (p.bytes >= options.min_bytes) out.push_back(p.busbw_gbps);
    }
  }
  return out;
}

namespace {

// The fit with the discrete choices of `start` held fixed.
CollectiveFit fit_continuous(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                             const coll::CollectiveParams& start, const CollectiveFitOptions& options,
                             const std::vector<double>& measured) {
  const auto predict = [&](const std::vector<double>& x) {
    return predict_busbw(cluster_for, series, from_vector(start, x), options, false);
  };
  const std::vector<double> x0 = to_vector(start);
  std::vector<int> candidates = {kAlpha, kStep, kNvlsStep, kLaunch};
  for (int e : efficiencies_used(cluster_for, series, start, options)) candidates.push_back(e);
  const std::vector<bool> keep = identifiable(predict, measured, x0, candidates);

  std::vector<FitParameter> parameters;
  for (int j = 0; j < kCount; ++j) {
    const bool time = is_time(j);
    FitParameter p;
    p.name = kNames[j];
    p.value = x0[j];
    p.lower = 0;
    p.upper = time ? 1e6 : 1.0;  // 1 ms per step or launch; a fraction of line rate
    if (!time) p.lower = 0.01;
    p.unit = time ? "ns" : "";
    p.resolution = time ? 1.0 : 0.0;  // the model rounds times to whole ns
    p.fixed = !keep[j];
    parameters.push_back(p);
  }
  CollectiveFit fit;
  fit.result = fit_least_squares(predict, measured, parameters);
  std::vector<double> x;
  for (const auto& p : fit.result.parameters) x.push_back(p.value);
  fit.params = from_vector(start, x);
  for (int j : candidates) (keep[j] ? fit.fitted : fit.not_identified).push_back(kNames[j]);
  return fit;
}

}  // namespace

CollectiveFit fit_collectives(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                              const coll::CollectiveParams& start, const CollectiveFitOptions& options) {
  const std::vector<double> measured = measured_busbw(series, options);
  if (measured.empty()) {
    throw std::invalid_argument("collective fit: no nccl-tests point of " + std::to_string(options.min_bytes) +
                                " bytes or more");
  }
  CollectiveFit best = fit_continuous(cluster_for, series, start, options, measured);
  // Whether NCCL shrank its NVLS chunk for mid-size messages depends on its version: where NVLS
  // ran, the data decide (the lower sum of squared relative errors), and the profile says which.
  if (efficiencies_used(cluster_for, series, start, options).count(kNvls) > 0) {
    coll::CollectiveParams other = start;
    other.nvls_adaptive_chunk = !start.nvls_adaptive_chunk;
    CollectiveFit alternative = fit_continuous(cluster_for, series, other, options, measured);
    if (sum_squared_relative(alternative.result) < sum_squared_relative(best.result)) best = std::move(alternative);
    best.fitted.push_back("nvls_adaptive_chunk");
  }
  return best;
}

}  // namespace fathom::calib
