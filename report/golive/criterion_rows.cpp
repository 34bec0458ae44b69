#include "report/golive/criterion_rows.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "report/cost/cost_report.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report::criteria {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100);
  return buf;
}

std::string number(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string count_text(double n) {
  if (n >= 1e6) return number("%.3gM", n / 1e6);
  if (n >= 1e3) return number("%.3gK", n / 1e3);
  return number("%.3g", n);
}

double margin(const std::string& op, double actual, double wanted) {
  if (op == "<=" || op == "<") return actual > 0 ? wanted / actual : 0;
  return wanted > 0 ? actual / wanted : 0;
}

Verdict verdict(bool pass) { return pass ? Verdict::kPass : Verdict::kFail; }

const ExpectationOutcome* find(const std::vector<ExpectationOutcome>& outcomes, const std::string& key) {
  for (const auto& e : outcomes) {
    if (e.expectation.key == key) return &e;
  }
  return nullptr;
}

Criterion from_expectation(std::string name, const ExpectationOutcome& e) {
  Criterion c;
  c.name = std::move(name);
  c.predicted = in_written_unit(e.actual, e.expectation);
  c.target = e.expectation.text + " (expect: " + e.expectation.key + ")";
  c.verdict = verdict(e.pass);
  c.margin = margin(e.expectation.op, e.actual, e.expectation.value);
  return c;
}

Criterion held_to(std::string name, const std::vector<ExpectationOutcome>& outcomes, const std::string& key,
                  double actual, const std::string& op, double target, const std::string& target_text,
                  std::string predicted) {
  Criterion c;
  if (const ExpectationOutcome* e = find(outcomes, key)) {
    c = from_expectation(std::move(name), *e);
  } else {
    c.name = std::move(name);
    c.target = op + " " + target_text + " (report." + key + ")";
    c.verdict = verdict(op == "<=" ? actual <= target : actual >= target);
    c.margin = margin(op, actual, target);
  }
  c.predicted = std::move(predicted);
  return c;
}

Criterion time_to_train_row(const std::vector<ExpectationOutcome>& outcomes, double predicted_s) {
  const std::string name = "Time to train against the deadline";
  Criterion c;
  if (const ExpectationOutcome* e = find(outcomes, "time_to_train")) {
    c = from_expectation(name, *e);
  } else {
    c.name = name;
    c.target = "none (expect: time_to_train)";
    c.verdict = Verdict::kReported;
  }
  c.predicted = duration_text(predicted_s);
  return c;
}

std::vector<Criterion> cost_rows(const cost::CostResult& k, const std::vector<ExpectationOutcome>& outcomes,
                                 bool priced_run) {
  struct Figure {
    const char* key;
    const char* name;
    double value;
    bool watts;
  };
  std::vector<Figure> figures = {{"capex", "Capital cost", k.capex_usd, false},
                                 {"tco", "Total cost of ownership", k.tco_usd, false},
                                 {"it_power", "IT power", k.power_w_it, true},
                                 {"facility_power", "Facility power", k.power_w_facility, true}};
  if (priced_run) figures.push_back({"run_cost", "Cost of the run", k.usd_per_run, false});
  std::vector<Criterion> rows;
  for (const Figure& f : figures) {
    Criterion c;
    if (const ExpectationOutcome* e = find(outcomes, f.key)) {
      c = from_expectation(f.name, *e);
      c.remedy = e->pass ? "" : "a smaller or cheaper cluster (fathom plan with a budget: or power: constraint)";
    } else {
      c.name = f.name;
      c.target = std::string("none (expect: ") + f.key + ")";
      c.verdict = Verdict::kReported;
    }
    c.predicted = f.watts ? kw_text(f.value) : usd_text(f.value);
    c.note = "The cost model (docs/cost.md) over the cluster's census and the scenario's cost: section.";
    rows.push_back(std::move(c));
  }
  return rows;
}

std::vector<Criterion> remaining_expectations(const std::vector<ExpectationOutcome>& outcomes,
                                              const std::vector<std::string>& shown) {
  std::vector<Criterion> rows;
  for (const ExpectationOutcome& e : outcomes) {
    if (std::find(shown.begin(), shown.end(), e.expectation.key) != shown.end()) continue;
    Criterion c = from_expectation("expect: " + e.expectation.key, e);
    c.note = "The scenario's own criterion.";
    if (!e.pass) c.remedy = "see the figure's breakdown in fathom simulate";
    rows.push_back(std::move(c));
  }
  return rows;
}

std::vector<Criterion> service_rows(const std::optional<InferenceReport>& service) {
  const std::string ttft = "P99 inference latency (time to first token)";
  const std::string tpot = "P99 inference latency (time per output token)";
  const std::string unit = service && service->scenario.wafer_scale ? "wafer" : "GPU";
  const std::string per_accelerator = "Inference throughput per " + unit;
  if (!service) {
    std::vector<Criterion> rows;
    for (const std::string& name : {ttft, tpot, per_accelerator}) {
      Criterion c;
      c.name = name;
      c.target = name == per_accelerator ? "reported" : "the service's SLO";
      c.verdict = Verdict::kNotEvaluated;
      c.remedy = "name the service's scenario (workload kind: inference) under report.service (docs/inference.md)";
      rows.push_back(std::move(c));
    }
    return rows;
  }
  const InferenceReport& r = *service;
  const infer::ServiceMetrics& m = r.metrics;
  const infer::Slo& slo = r.scenario.inference.slo;
  const std::string file = r.scenario.file;
  const auto latency = [&](const std::string& name, double p99, double limit, const char* key) {
    Criterion c;
    c.name = name;
    c.predicted = duration_text(p99);
    if (limit > 0) {
      c.target = "<= " + duration_text(limit) + " (" + file + ": workload.slo." + key + ")";
      c.verdict = verdict(p99 <= limit);
      c.margin = margin("<=", p99, limit);
    } else {
      c.target = "none (" + file + " sets no slo." + key + ")";
      c.verdict = Verdict::kReported;
    }
    c.note = "Over " + std::to_string(m.finished) + " requests at " + number("%.4g", m.requests_per_s) +
             " a second; the service's model and assumptions: " +
             (r.scenario.wafer_scale ? "docs/wafer.md, Serving." : "docs/inference.md.");
    if (c.verdict == Verdict::kFail) {
      c.remedy =
          "more replicas, a higher tp, or a smaller chunked-prefill budget (fathom plan searches them: "
          "docs/plan.md, Planning a service)";
    }
    return c;
  };
  Criterion throughput;
  throughput.name = per_accelerator;
  // The accelerators up over the run, on average (an autoscaler changes them).
  const double accelerators = r.run.end.to_seconds() > 0 ? r.gpu_hours * 3600 / r.run.end.to_seconds() : 0;
  throughput.predicted = number("%.0f", accelerators > 0 ? m.throughput_tokens_per_s / accelerators : 0) +
                         " output tokens/s, " + number("%.3g", accelerators > 0 ? m.requests_per_s / accelerators : 0) +
                         " requests/s";
  throughput.target = "reported";
  throughput.verdict = Verdict::kReported;
  throughput.note = "The service's output tokens and finished requests a second over its " +
                    number("%.4g", accelerators) + " " + unit + "s (" + r.scenario.inference.model.name + ").";
  return {latency(ttft, m.ttft_s.p99, slo.ttft_s, "ttft"), latency(tpot, m.tpot_s.p99, slo.tpot_s, "tpot"), throughput};
}

}  // namespace fathom::report::criteria
