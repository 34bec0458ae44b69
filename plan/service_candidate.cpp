#include "plan/service_candidate.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "report/inference/inference_report.hpp"
#include "report/number_text.hpp"

namespace fathom::plan {

namespace {

using report::ms_text;

// One simulated replica count: its figures in a candidate's shape, and whether it meets the SLO.
struct Trial {
  bool loaded = false;
  std::string error;  // the loader's, when not loaded
  Evaluated figures;
  std::string miss;  // slo_miss's words; empty when it meets the SLO
};

Trial simulate(const ServiceLoader& load, std::optional<int> replicas) {
  Trial t;
  std::optional<scenario::Scenario> s = load(replicas, t.error);
  if (!s) return t;
  t.loaded = true;
  const scenario::InferenceWorkload& w = s->inference;
  const infer::Slo slo = w.slo;
  report::InferenceReport r;
  try {
    r = report::evaluate_inference(std::move(*s));
  } catch (const std::exception& error) {
    t.loaded = false;
    t.error = error.what();
    return t;
  }
  const scenario::InferenceWorkload& v = r.scenario.inference;
  const infer::ServiceMetrics& m = r.metrics;
  Evaluated& e = t.figures;
  e.service = true;
  e.serving.replicas = v.autoscaler.enabled ? v.autoscaler.max_replicas : v.serving.replicas;
  e.gpus = e.serving.replicas * v.gpus_per_replica() + v.prefill_replicas * v.prefill.tp;
  // The nodes the replicas occupy: each from its first node, a pipeline across whole nodes on
  // `span` of them.
  const int span = std::max(1, v.gpus_per_replica() / r.scenario.cluster.node.gpus);
  std::set<std::int32_t> nodes;
  for (std::size_t k = 0; k < v.node_of.size(); ++k) {
    const int spans = static_cast<int>(k) < e.serving.replicas ? span : 1;
    for (int n = 0; n < spans; ++n) nodes.insert(v.node_of[k] + n);
  }
  // On wafers a node of the serving cluster is a group of tensor-parallel systems: count systems.
  e.nodes = r.scenario.wafer_scale ? e.gpus : static_cast<int>(nodes.size());
  e.tokens_per_s = m.throughput_tokens_per_s;
  e.peak_memory_bytes = v.budget.usable_bytes;  // weights, activations and the KV cache, per GPU
  e.serving.p99_ttft_s = m.ttft_s.p99;
  e.serving.p99_tpot_s = m.tpot_s.p99;
  e.serving.p99_e2e_s = m.e2e_s.p99;
  e.serving.requests_per_s = m.requests_per_s;
  e.serving.goodput = m.finished > 0 ? static_cast<double>(m.good_requests) / static_cast<double>(m.finished) : 0;
  if (r.cost) {
    e.priced = true;
    e.capex_usd = r.cost->capex_usd;
    e.facility_power_w = r.cost->power_w_facility;
    e.usd_per_gpu_hour = r.cost->usd_per_gpu_hour;
    e.serving.usd_per_hour = r.usd_per_hour();
    e.serving.usd_per_million_tokens = r.cost->usd_per_million_tokens;
  }
  t.miss = slo_miss(m, slo);
  return t;
}

// The trial's figures into the candidate, which keeps its index and values.
void take(Evaluated& e, const Trial& t, int evaluations) {
  Evaluated from = t.figures;
  from.index = e.index;
  from.values = std::move(e.values);
  from.serving.evaluations = evaluations;
  e = std::move(from);
}

}  // namespace

std::string slo_miss(const infer::ServiceMetrics& m, const infer::Slo& slo) {
  std::string out;
  const auto check = [&](const char* name, double p99, double limit) {
    if (limit <= 0 || p99 <= limit) return;
    out += (out.empty() ? "" : ", ") + std::string("P99 ") + name + " " + ms_text(p99) + " over the SLO's " +
           ms_text(limit);
  };
  check("TTFT", m.ttft_s.p99, slo.ttft_s);
  check("TPOT", m.tpot_s.p99, slo.tpot_s);
  check("E2E", m.e2e_s.p99, slo.e2e_s);
  if (m.finished < m.requests) {
    out += (out.empty() ? "" : ", ") + std::to_string(m.requests - m.finished) + " requests unfinished";
  }
  return out;
}

void record_cost(const cost::CostResult& cost, Evaluated& e) {
  e.priced = true;
  e.capex_usd = cost.capex_usd;
  e.usd_per_run = cost.usd_per_run;
  e.facility_power_w = cost.power_w_facility;
  e.usd_per_gpu_hour = cost.usd_per_gpu_hour;
}

std::string duration_days(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f days", seconds / 86400);
  return buf;
}

void apply_run_constraints(const scenario::PlanSpec& plan, Evaluated& e) {
  if (plan.deadline_s && e.time_to_train_s > *plan.deadline_s) {
    e.status = Status::kMissesDeadline;
    e.reason = duration_days(e.time_to_train_s) + " to train, deadline " + duration_days(*plan.deadline_s);
  } else {
    apply_cost_constraints(plan, e);
  }
}

void apply_cost_constraints(const scenario::PlanSpec& plan, Evaluated& e) {
  if (plan.budget_usd && e.capex_usd > *plan.budget_usd) {
    e.status = Status::kOverBudget;
    char buf[96];
    std::snprintf(buf, sizeof buf, "capex $%.4gM over the budget of $%.4gM", e.capex_usd / 1e6, *plan.budget_usd / 1e6);
    e.reason = buf;
  } else if (plan.power_w && e.facility_power_w > *plan.power_w) {
    e.status = Status::kOverPower;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.4g MW facility power over the limit of %.4g MW", e.facility_power_w / 1e6,
                  *plan.power_w / 1e6);
    e.reason = buf;
  }
}

void evaluate_service(const ServiceLoader& load, const scenario::PlanSpec& plan, Evaluated& e) {
  int evaluations = 0;
  const auto attempt = [&](std::optional<int> replicas) {
    ++evaluations;
    return simulate(load, replicas);
  };
  const auto fail = [&](const Trial& t) {
    e.service = true;
    e.status = Status::kInvalid;
    e.reason = t.error;
    e.serving.evaluations = evaluations;
  };

  if (!plan.searches_replicas()) {
    const Trial t = attempt(std::nullopt);
    if (!t.loaded) return fail(t);
    take(e, t, evaluations);
    e.status = t.miss.empty() ? Status::kFeasible : Status::kMissesSlo;
    e.reason = t.miss;
    if (e.status == Status::kFeasible) apply_cost_constraints(plan, e);
    return;
  }

  int low = plan.fewest_replicas_from;  // the last count that missed (once `missed`)
  int high = plan.fewest_replicas_to;   // the most the search may try
  Trial at_low = attempt(low);
  if (!at_low.loaded) return fail(at_low);
  std::optional<Trial> met;
  int met_at = 0;
  std::string cap;  // why the search stopped below plan.fewest_replicas_to
  if (at_low.miss.empty()) {
    met = std::move(at_low);
    met_at = low;
  }
  // Doubling: the first count that meets the SLO, or every count up to `high` missing.
  while (!met && low < high) {
    const int next = static_cast<int>(std::min<long long>(high, 2LL * low));
    Trial t = attempt(next);
    if (!t.loaded) {
      // More replicas than the cluster holds (the loader's message says so): search below.
      high = next - 1;
      cap = t.error;
      continue;
    }
    if (t.miss.empty()) {
      met = std::move(t);
      met_at = next;
    } else {
      low = next;
      at_low = std::move(t);
    }
  }
  if (!met) {
    take(e, at_low, evaluations);
    e.status = Status::kMissesSlo;
    e.reason = at_low.miss + " with " + std::to_string(low) + (low == 1 ? " replica" : " replicas") + ", the most " +
               (cap.empty() ? "plan.fewest_replicas allows" : "the cluster holds (" + cap + ")");
    e.serving.evaluations = evaluations;
    return;
  }
  // Bisection: `low` missed (or is below the range's start), `met_at` meets.
  if (met_at == plan.fewest_replicas_from) low = met_at;
  while (met_at - low > 1) {
    const int mid = low + (met_at - low) / 2;
    Trial t = attempt(mid);
    if (t.loaded && t.miss.empty()) {
      met = std::move(t);
      met_at = mid;
    } else {
      low = mid;
    }
  }
  take(e, *met, evaluations);
  e.status = Status::kFeasible;
  e.reason.clear();
  apply_cost_constraints(plan, e);
}

}  // namespace fathom::plan
