#include "models/collectives/step_period.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::coll {

namespace {

// The prefix with the background transfers appended (their predecessors shifted past it).
TransferDag with_background(TransferDag prefix, const TransferDag* background) {
  if (background != nullptr) prefix.append(*background);
  return prefix;
}

// Whether steps [m - w, m) of a prefix of m steps finish at a fixed spacing (each within 1 ns of
// the mean over the window), and that spacing in ns (a fraction: the window's span over w).
struct Window {
  bool periodic = false;
  std::int64_t span_ns = 0;  // F[m-1] - F[m-1-w]
  int width = 0;             // w
};
Window window_of(const std::vector<std::int64_t>& last_finish) {
  const int m = static_cast<int>(last_finish.size());
  Window w;
  w.width = m / 2;
  if (w.width < 2) return w;
  const auto at = [&](int k) { return last_finish[static_cast<std::size_t>(k)]; };
  w.span_ns = at(m - 1) - at(m - 1 - w.width);
  w.periodic = true;
  for (int k = m - w.width; k < m; ++k) {
    // |d_k - span / w| <= 1 ns, in integers.
    const std::int64_t d = at(k) - at(k - 1);
    if (std::abs(d * w.width - w.span_ns) > w.width) w.periodic = false;
  }
  return w;
}

}  // namespace

StepPeriodRun run_by_step_period(const topo::Topology& topology, topo::Router& router, const StepDagBuilder& build,
                                 int steps, std::uint64_t seed, int flows_per_connection, const TransferDag* background,
                                 const StepModel* model, std::size_t max_transfers) {
  if (steps < 1)
    throw std::invalid_argument("run_by_step_period: needs at least one step, got " + std::to_string(steps));
  StepPeriodRun out;
  for (int m = std::min(steps, kFirstPrefixSteps);; m = std::min(steps, 2 * m)) {
    StepDag prefix = build(m);
    if (prefix.step.size() != prefix.dag.size()) {
      throw std::logic_error("run_by_step_period: the builder labelled " + std::to_string(prefix.step.size()) + " of " +
                             std::to_string(prefix.dag.size()) + " transfers with their step");
    }
    const std::size_t own = prefix.dag.size();
    const DagResult result =
        run_dag(topology, router, with_background(std::move(prefix.dag), background), seed, flows_per_connection);
    out.simulated_steps = m;
    std::vector<std::int64_t> last_finish(static_cast<std::size_t>(m), 0);
    for (std::size_t i = 0; i < own; ++i) {
      const std::uint32_t k = prefix.step[i];
      if (k >= last_finish.size()) throw std::logic_error("run_by_step_period: a transfer past the prefix's steps");
      last_finish[k] = std::max(last_finish[k], result.transfers[i].finish.ns());
    }
    if (m == steps) {  // the whole collective ran: its own last finish, not the background's
      out.makespan = sim::SimTime::from_ns(*std::max_element(last_finish.begin(), last_finish.end()));
      return out;
    }
    std::int64_t background_done = 0;
    for (std::size_t i = own; i < result.transfers.size(); ++i) {
      background_done = std::max(background_done, result.transfers[i].finish.ns());
    }
    const Window w = window_of(last_finish);
    const bool settled = background_done <= last_finish[static_cast<std::size_t>(m - 1 - w.width)];
    if (!w.periodic || !settled) {
      // No period yet: a longer prefix, unless it would pass the budget and the model can finish.
      const bool quiet = background_done <= last_finish.back();
      if (model == nullptr || !*model || !quiet || 2 * own <= max_transfers) continue;
      const double prefix_model = (*model)(m), whole_model = (*model)(steps);
      if (!(prefix_model > 0) || !(whole_model >= prefix_model)) continue;
      const double estimate_s = static_cast<double>(last_finish.back()) * 1e-9 * (whole_model / prefix_model);
      if (!(estimate_s < 9.2e9)) throw sim::TimeOutOfRange(estimate_s);
      out.makespan = sim::SimTime::from_seconds(estimate_s);
      out.scaled = true;
      return out;
    }
    // The remaining steps at the window's spacing, rounded to the nanosecond once; a makespan
    // past the clock's range throws TimeOutOfRange, as the whole run would.
    const auto rest = static_cast<std::int64_t>(steps - m);
    const double estimate_s =
        (static_cast<double>(last_finish.back()) +
         static_cast<double>(rest) * static_cast<double>(w.span_ns) / static_cast<double>(w.width)) *
        1e-9;
    if (!(estimate_s < 9.2e9)) throw sim::TimeOutOfRange(estimate_s);
    const std::int64_t whole = w.span_ns / w.width, part = w.span_ns % w.width;
    const std::int64_t extra = rest * whole + (rest * part * 2 + w.width) / (2 * w.width);
    out.makespan = sim::SimTime::from_ns(last_finish.back()) + sim::SimTime::from_ns(extra);
    out.period = sim::SimTime::from_ns((w.span_ns * 2 + w.width) / (2 * w.width));
    out.extrapolated = true;
    return out;
  }
}

}  // namespace fathom::coll
