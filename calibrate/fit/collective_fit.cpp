#include "calibrate/fit/collective_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "models/collectives/collective_parameters.hpp"
#include "models/collectives/collective_timer.hpp"
#include "models/collectives/nccl_tests.hpp"

namespace fathom::calib {

namespace {

// The candidates, in the order the identifiability check considers them: alpha before launch,
// so that when the data cannot tell them apart (one step count everywhere) alpha is fitted and
// launch keeps its start value. Each is a declared parameter of CollectiveParams
// (collective_parameters.hpp), which gives its name in the fit, how to read and set it, and
// whether it is a time.
enum Index { kAlpha, kStep, kNvlsStep, kLLAlpha, kLL128Alpha, kLaunch, kRing, kTree, kNvls, kNic, kCount };
constexpr std::string_view kKeys[kCount] = {"alpha",           "step",          "nvls_step",       "ll_alpha",
                                            "ll128_alpha",     "launch",        "efficiency.ring", "efficiency.tree",
                                            "efficiency.nvls", "efficiency.nic"};

const params::Parameter<coll::CollectiveParams>& declared(int j) {
  static const auto table = [] {
    std::array<const params::Parameter<coll::CollectiveParams>*, kCount> t{};
    for (int i = 0; i < kCount; ++i)
      t[static_cast<std::size_t>(i)] = params::find(coll::collective_parameters(), kKeys[i]);
    return t;
  }();
  return *table[static_cast<std::size_t>(j)];
}
// The name the declared parameter `key` is fitted under.
std::string fit_name(std::string_view key) {
  return std::string(params::find(coll::collective_parameters(), key)->fit_name);
}

bool is_time(int j) { return declared(j).quantity == params::Quantity::kDuration; }

std::vector<double> to_vector(const coll::CollectiveParams& p) {
  std::vector<double> x;
  for (int j = 0; j < kCount; ++j) x.push_back(declared(j).get(p));
  return x;
}

coll::CollectiveParams from_vector(coll::CollectiveParams p, const std::vector<double>& x) {
  for (int j = 0; j < kCount; ++j) declared(j).set(p, x[static_cast<std::size_t>(j)]);
  return p;
}

// One collective timer per series, kept across the thousands of parameter sets a fit evaluates:
// the cluster is built, and every group's closed form validated, once per fit instead of once
// per evaluation (CollectiveTimer::set_params).
class Timers {
 public:
  coll::CollectiveTimer& get(std::size_t i, const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                             std::uint64_t seed) {
    if (timers_.size() <= i) timers_.resize(i + 1);
    if (!timers_[i]) {
      timers_[i] = std::make_unique<coll::CollectiveTimer>(cluster, params, seed);
    } else {
      timers_[i]->set_params(params);
    }
    return *timers_[i];
  }

 private:
  std::vector<std::unique_ptr<coll::CollectiveTimer>> timers_;
};

// Calls `each(series, timer, ranks, point)` for every point of at least min_bytes, on a timer
// per series on the system of its node count (from `timers` where given, else built here).
template <typename Each>
void for_each_point(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                    const coll::CollectiveParams& params, const CollectiveFitOptions& options, Each&& each,
                    Timers* timers = nullptr) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    const BusbwSeries& s = series[i];
    const topo::ClusterSpec cluster = cluster_for(s.nodes);
    if (cluster.nodes < s.nodes || cluster.node.gpus < s.gpus_per_node) {
      throw std::invalid_argument(s.file + ": measured on " + std::to_string(s.nodes) + " node(s) x " +
                                  std::to_string(s.gpus_per_node) + " GPU(s), but the system has " +
                                  std::to_string(cluster.nodes) + " x " + std::to_string(cluster.node.gpus));
    }
    coll::CollectiveParams forced = params;
    if (s.protocol) forced.protocol = s.protocol;
    std::optional<coll::CollectiveTimer> own;
    coll::CollectiveTimer& timer =
        timers ? timers->get(i, cluster, forced, options.seed) : own.emplace(cluster, forced, options.seed);
    const auto ranks = coll::nccl_group_ranks(timer.topology(), s.nodes, s.gpus_per_node);
    for (const BusbwPoint& p : s.points) {
      if (p.bytes >= options.min_bytes) each(s, timer, ranks, p);
    }
  }
}

// The efficiencies the points' algorithms run at (nvlink_efficiency), plus the NIC's where a
// series spans nodes.
std::set<int> efficiencies_used(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                Timers& timers) {
  std::set<int> used;
  for_each_point(
      cluster_for, series, params, options,
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
      },
      &timers);
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

// predict_busbw on `timers`.
std::vector<double> predictions(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                bool simulate, Timers& timers) {
  std::vector<double> out;
  for_each_point(
      cluster_for, series, params, options,
      [&](const BusbwSeries& s, coll::CollectiveTimer& timer, const auto& ranks, const BusbwPoint& p) {
        const coll::NcclSize size = simulate ? coll::simulate_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm)
                                             : coll::closed_form_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm);
        out.push_back(size.busbw_gbps);
      },
      &timers);
  return out;
}

}  // namespace

std::vector<double> predict_busbw(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                  const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                  bool simulate) {
  Timers timers;
  return predictions(cluster_for, series, params, options, simulate, timers);
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

// The fit with the discrete choices of `start` held fixed. `screening`: a short fit that only
// ranks a candidate, which keeps a parameter it finds unconstrained (the full fit drops it).
CollectiveFit fit_continuous(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                             const coll::CollectiveParams& start, const CollectiveFitOptions& options,
                             const std::vector<double>& measured, Timers& timers, const FitOptions& fit_options = {},
                             bool screening = false) {
  const auto predict = [&](const std::vector<double>& x) {
    return predictions(cluster_for, series, from_vector(start, x), options, false, timers);
  };
  const std::vector<double> x0 = to_vector(start);
  std::vector<int> candidates = {kAlpha, kStep, kNvlsStep, kLLAlpha, kLL128Alpha, kLaunch};
  for (int e : efficiencies_used(cluster_for, series, start, options, timers)) candidates.push_back(e);
  std::vector<bool> keep = identifiable(predict, measured, x0, candidates);

  std::vector<FitParameter> parameters;
  for (int j = 0; j < kCount; ++j) {
    const bool time = is_time(j);
    FitParameter p;
    p.name = std::string(declared(j).fit_name);
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
  fit.result = fit_least_squares(predict, measured, parameters, fit_options);
  // A parameter that moves the predictions at the start but whose 1-sigma spans more than its
  // whole admissible range once fitted is not constrained by the data after all (a 2-node ring's
  // NVLink fraction, which its latency-bound sizes touch only through the NVLink hops' bytes):
  // kept at its start value and the rest refitted.
  for (bool again = !screening; again;) {
    again = false;
    for (int j : candidates) {
      const FitParameter& p = parameters[static_cast<std::size_t>(j)];
      const double sigma = fit.result.uncertainty[static_cast<std::size_t>(j)];
      if (keep[j] && std::isfinite(sigma) && sigma > p.upper - p.lower) {
        keep[j] = false;
        parameters[static_cast<std::size_t>(j)].fixed = true;
        again = true;
      }
    }
    if (again) fit.result = fit_least_squares(predict, measured, parameters, fit_options);
  }
  std::vector<double> x;
  for (const auto& p : fit.result.parameters) x.push_back(p.value);
  fit.params = from_vector(start, x);
  for (int j : candidates) (keep[j] ? fit.fitted : fit.not_identified).push_back(std::string(declared(j).fit_name));
  return fit;
}

}  // namespace

namespace {

// Whether any point runs a protocol chosen by size on the double binary tree (`tree`) or on one
// of the other algorithms that have protocols (not NVLS or NVLS-tree), in a series that does not
// force NCCL_PROTO.
bool protocols_by_size(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                       const coll::CollectiveParams& params, const CollectiveFitOptions& options, bool tree,
                       Timers& timers) {
  bool any = false;
  for_each_point(
      cluster_for, series, params, options,
      [&](const BusbwSeries& s, coll::CollectiveTimer& timer, const auto& ranks, const BusbwPoint& p) {
        const auto a = coll::closed_form_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm).timing.algorithm;
        const bool is_tree = a == coll::Algorithm::kDoubleBinaryTree;
        any |= !s.protocol && a != coll::Algorithm::kNvls && a != coll::Algorithm::kNvlsTree && is_tree == tree;
      },
      &timers);
  return any;
}

// The algorithm of every point, in order.
std::vector<coll::Algorithm> algorithms_of(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                           const coll::CollectiveParams& params, const CollectiveFitOptions& options,
                                           Timers& timers) {
  std::vector<coll::Algorithm> out;
  for_each_point(
      cluster_for, series, params, options,
      [&](const BusbwSeries& s, coll::CollectiveTimer& timer, const auto& ranks, const BusbwPoint& p) {
        out.push_back(coll::closed_form_nccl_size(timer, s.op, ranks, p.bytes, s.algorithm).timing.algorithm);
      },
      &timers);
  return out;
}

using Bound = double coll::CollectiveParams::*;

// The candidate values of a size threshold: every measured size of at least min_bytes (a
// threshold t puts every size below t on one side) and twice the largest (every size below).
std::vector<double> threshold_candidates(const std::vector<BusbwSeries>& series, const CollectiveFitOptions& options) {
  std::vector<double> sizes;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      if (p.bytes >= options.min_bytes) sizes.push_back(static_cast<double>(p.bytes));
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.push_back(2 * sizes.back());
  return sizes;
}

// One size threshold searched with the rest held: every candidate in [from, upto] screened by a
// short fit from the incumbent's parameters, the best refitted to convergence and kept if it
// lowers the sum of squared relative errors.
CollectiveFit search_threshold(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                               CollectiveFit best, Bound bound, double from, double upto,
                               const CollectiveFitOptions& options, const std::vector<double>& measured,
                               Timers& timers) {
  FitOptions screening;
  screening.max_iterations = 20;
  const coll::CollectiveParams base = best.params;
  std::optional<coll::CollectiveParams> winner;
  double winner_ssr = sum_squared_relative(best.result);
  for (double t : threshold_candidates(series, options)) {
    if (t < from || t > upto || t == base.*bound) continue;
    coll::CollectiveParams start = base;
    start.*bound = t;
    const CollectiveFit fit = fit_continuous(cluster_for, series, start, options, measured, timers, screening, true);
    const double ssr = sum_squared_relative(fit.result);
    if (ssr < winner_ssr) {
      winner_ssr = ssr;
      winner = fit.params;
    }
  }
  if (!winner) return best;
  CollectiveFit refit = fit_continuous(cluster_for, series, *winner, options, measured, timers);
  return sum_squared_relative(refit.result) < sum_squared_relative(best.result) ? refit : best;
}

// NCCL's protocol thresholds of one algorithm family (`ll` and `ll128`: the ring's or the
// tree's), fitted: a message below ll128 runs LL128 (below ll, LL). LL128's bound and then LL's
// below it, and LL's and then LL128's above it; from the better of the two orders, each bound
// again with the other held until neither moves.
CollectiveFit fit_protocol_thresholds(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                      const CollectiveFit& start, Bound ll, Bound ll128,
                                      const CollectiveFitOptions& options, const std::vector<double>& measured,
                                      Timers& timers) {
  const double top = threshold_candidates(series, options).back();
  const auto search = [&](CollectiveFit best, Bound bound, double from, double upto) {
    return search_threshold(cluster_for, series, std::move(best), bound, from, upto, options, measured, timers);
  };
  CollectiveFit ll128_first = search(start, ll128, 0, top);
  ll128_first = search(std::move(ll128_first), ll, 0, ll128_first.params.*ll128);
  CollectiveFit ll_first = search(start, ll, 0, top);
  ll_first = search(std::move(ll_first), ll128, ll_first.params.*ll, top);
  CollectiveFit best =
      sum_squared_relative(ll_first.result) < sum_squared_relative(ll128_first.result) ? ll_first : ll128_first;
  for (int round = 0; round < 3; ++round) {
    const double before = sum_squared_relative(best.result);
    best = search(std::move(best), ll128, best.params.*ll, top);
    best = search(std::move(best), ll, 0, best.params.*ll128);
    if (!(sum_squared_relative(best.result) < before)) break;
  }
  return best;
}

// Whether moving `bound` to some candidate changes the algorithm of some point: only then can
// the data say where NCCL switches (an unforced log on both sides of the switch, or on one side
// near it).
bool algorithm_threshold_matters(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                                 const coll::CollectiveParams& params, Bound bound, const CollectiveFitOptions& options,
                                 Timers& timers) {
  const auto now = algorithms_of(cluster_for, series, params, options, timers);
  for (double t : threshold_candidates(series, options)) {
    coll::CollectiveParams moved = params;
    moved.*bound = t;
    if (algorithms_of(cluster_for, series, moved, options, timers) != now) return true;
  }
  return false;
}

}  // namespace

CollectiveFit fit_collectives(const ClusterForNodes& cluster_for, const std::vector<BusbwSeries>& series,
                              const coll::CollectiveParams& given, const CollectiveFitOptions& options) {
  // The fit chooses as the options say (by default by size thresholds, which it searches); the
  // profile says which (`tuner`).
  coll::CollectiveParams start = given;
  start.tuner = options.tuner;
  const std::vector<double> measured = measured_busbw(series, options);
  if (measured.empty()) {
    throw std::invalid_argument("collective fit: no nccl-tests point of " + std::to_string(options.min_bytes) +
                                " bytes or more");
  }
  Timers timers;
  CollectiveFit best = fit_continuous(cluster_for, series, start, options, measured, timers);
  std::vector<std::string> discrete{fit_name("tuner")};
  // Whether NCCL shrank its NVLS chunk for mid-size messages depends on its version: where NVLS
  // ran, the data decide (the lower sum of squared relative errors), and the profile says which.
  if (efficiencies_used(cluster_for, series, start, options, timers).count(kNvls) > 0) {
    coll::CollectiveParams other = start;
    other.nvls_adaptive_chunk = !start.nvls_adaptive_chunk;
    CollectiveFit alternative = fit_continuous(cluster_for, series, other, options, measured, timers);
    if (sum_squared_relative(alternative.result) < sum_squared_relative(best.result)) best = std::move(alternative);
    discrete.push_back(fit_name("nvls_adaptive_chunk"));
  }
  if (options.tuner == coll::Tuner::kNccl) {  // NCCL's model chooses: no threshold to search
    best.fitted.insert(best.fitted.end(), discrete.begin(), discrete.end());
    return best;
  }
  // The tuner's algorithm thresholds first (they decide which points run trees), then each
  // family's protocol thresholds, then the algorithm thresholds once more with the protocols set.
  const std::pair<std::string, Bound> algorithm_bounds[] = {
      {fit_name("nvls_min"), &coll::CollectiveParams::nvls_min_bytes},
      {fit_name("tree_max"), &coll::CollectiveParams::tree_max_bytes},
  };
  std::vector<std::pair<std::string, Bound>> searched;
  for (const auto& [name, bound] : algorithm_bounds) {
    if (!algorithm_threshold_matters(cluster_for, series, best.params, bound, options, timers)) continue;
    best = search_threshold(cluster_for, series, std::move(best), bound, 0, std::numeric_limits<double>::infinity(),
                            options, measured, timers);
    searched.emplace_back(name, bound);
    discrete.push_back(name);
  }
  if (protocols_by_size(cluster_for, series, best.params, options, false, timers)) {
    best = fit_protocol_thresholds(cluster_for, series, best, &coll::CollectiveParams::ll_max_bytes,
                                   &coll::CollectiveParams::ll128_max_bytes, options, measured, timers);
    discrete.push_back(fit_name("ll128_max"));
    discrete.push_back(fit_name("ll_max"));
  }
  if (protocols_by_size(cluster_for, series, best.params, options, true, timers)) {
    best = fit_protocol_thresholds(cluster_for, series, best, &coll::CollectiveParams::tree_ll_max_bytes,
                                   &coll::CollectiveParams::tree_ll128_max_bytes, options, measured, timers);
    discrete.push_back(fit_name("tree_ll128_max"));
    discrete.push_back(fit_name("tree_ll_max"));
  }
  for (const auto& [name, bound] : searched) {
    best = search_threshold(cluster_for, series, std::move(best), bound, 0, std::numeric_limits<double>::infinity(),
                            options, measured, timers);
  }
  // A profile that sets the ring's protocol bounds and not the tree's gives the tree the ring's
  // (scenarios/collectives_reader.cpp): predict with what the written profile will say.
  const auto has = [&](const char* key) {
    return std::find(discrete.begin(), discrete.end(), fit_name(key)) != discrete.end();
  };
  if (has("ll128_max") && !has("tree_ll128_max")) {
    best.params.tree_ll_max_bytes = best.params.ll_max_bytes;
    best.params.tree_ll128_max_bytes = best.params.ll128_max_bytes;
  }
  best.fitted.insert(best.fitted.end(), discrete.begin(), discrete.end());
  return best;
}

}  // namespace fathom::calib
