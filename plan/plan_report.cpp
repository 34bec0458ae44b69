#include "plan/plan_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "report/cost/cost_report.hpp"
#include "report/number_text.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::plan {

namespace {

using report::ms_text;

std::string duration_text(double s) {
  char buf[32];
  if (s >= 86400) {
    std::snprintf(buf, sizeof buf, "%.2f d", s / 86400);
  } else if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%.2f h", s / 3600);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  }
  return buf;
}

std::string values_text(const PlanResult& r, const Evaluated& e) {
  std::string s;
  for (std::size_t i = 0; i < r.axes.size(); ++i) s += (i ? ", " : "") + r.axes[i] + " " + e.values[i];
  return s;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The top `shown` of a training plan: GPUs, step, time to train, MFU and, when priced, capex and run cost.
void write_top_training(std::FILE* out, const PlanResult& r, std::size_t shown, int width) {
  const bool priced = r.candidates[r.ranking.front()].priced;
  std::fprintf(out, "\n  %4s  %-*s %6s %12s %14s %6s", "rank", width, "candidate", r.wafer ? "CS" : "GPUs", "step",
               "time to train", "MFU");
  if (priced) std::fprintf(out, " %10s %10s", "capex", "run cost");
  std::fprintf(out, "\n");
  for (std::size_t k = 0; k < shown; ++k) {
    const Evaluated& e = r.candidates[r.ranking[k]];
    std::fprintf(out, "  %4zu  %-*s %6d %12s %14s %5.1f%%", k + 1, width, values_text(r, e).c_str(), e.gpus,
                 duration_text(e.step_s).c_str(),
                 e.time_to_train_s > 0 ? duration_text(e.time_to_train_s).c_str() : "-", 100 * e.mfu);
    if (priced)
      std::fprintf(out, " %10s %10s", report::usd_text(e.capex_usd).c_str(), report::usd_text(e.usd_per_run).c_str());
    std::fprintf(out, "\n");
  }
}

// The top `shown` of a service's plan: its replicas and GPUs, P99 latencies, output throughput
// and, when priced, what the service costs an hour and per million output tokens.
void write_top_service(std::FILE* out, const PlanResult& r, std::size_t shown, int width) {
  const bool priced = r.candidates[r.ranking.front()].priced;
  std::fprintf(out, "\n  %4s  %-*s %8s %6s %10s %10s %10s %10s %10s", "rank", width, "candidate", "replicas",
               r.wafer ? "CS" : "GPUs", "P99 TTFT", "P99 TPOT", "P99 E2E", "tokens/s", r.wafer ? "per CS" : "per GPU");
  if (priced) std::fprintf(out, " %10s %10s", "per hour", "per Mtok");
  std::fprintf(out, "\n");
  for (std::size_t k = 0; k < shown; ++k) {
    const Evaluated& e = r.candidates[r.ranking[k]];
    std::fprintf(out, "  %4zu  %-*s %8d %6d %10s %10s %10s %10.0f %10.0f", k + 1, width, values_text(r, e).c_str(),
                 e.serving.replicas, e.gpus, ms_text(e.serving.p99_ttft_s).c_str(),
                 ms_text(e.serving.p99_tpot_s).c_str(), duration_text(e.serving.p99_e2e_s).c_str(), e.tokens_per_s,
                 e.gpus > 0 ? e.tokens_per_s / e.gpus : 0.0);
    if (priced) {
      std::fprintf(out, " %10s %10s", report::usd_text(e.serving.usd_per_hour).c_str(),
                   report::usd_text(e.serving.usd_per_million_tokens).c_str());
    }
    std::fprintf(out, "\n");
  }
}

const char* const kColumnNames[] = {"best", "runner-up", "best rejected"};
const int kColumnWidths[] = {12, 12, 14};

// Why the best wins: its step beside the runner-up's and the best rejected one's.
void write_step_breakdowns(std::FILE* out, const std::vector<const Evaluated*>& columns) {
  std::fprintf(out, "  %-34s", "step, seconds");
  for (std::size_t c = 0; c < columns.size(); ++c) std::fprintf(out, " %*s", kColumnWidths[c], kColumnNames[c]);
  std::fprintf(out, "\n");
  std::vector<std::vector<report::BreakdownComponent>> rows;
  for (const Evaluated* e : columns) rows.push_back(report::components(e->breakdown));
  for (std::size_t i = 0; i < rows.front().size(); ++i) {
    std::fprintf(out, "  %-34s", rows.front()[i].label);
    for (std::size_t c = 0; c < rows.size(); ++c) std::fprintf(out, " %*.4f", kColumnWidths[c], rows[c][i].seconds);
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "  %-34s", "total");
  for (std::size_t c = 0; c < columns.size(); ++c) std::fprintf(out, " %*.4f", kColumnWidths[c], columns[c]->step_s);
  std::fprintf(out, "\n");
}

// The same for a service: the figures the SLO and the cost are read from.
void write_service_figures(std::FILE* out, const std::vector<const Evaluated*>& columns, bool wafer) {
  std::fprintf(out, "  %-34s", "service");
  for (std::size_t c = 0; c < columns.size(); ++c) std::fprintf(out, " %14s", kColumnNames[c]);
  std::fprintf(out, "\n");
  const auto row = [&](const char* label, const auto& text) {
    std::fprintf(out, "  %-34s", label);
    for (const Evaluated* e : columns) std::fprintf(out, " %14s", text(*e).c_str());
    std::fprintf(out, "\n");
  };
  const auto fixed = [](double v, const char* format) {
    char buf[40];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  row("replicas", [](const Evaluated& e) { return std::to_string(e.serving.replicas); });
  row(wafer ? "systems" : "GPUs", [](const Evaluated& e) { return std::to_string(e.gpus); });
  row("P99 time to first token", [](const Evaluated& e) { return ms_text(e.serving.p99_ttft_s); });
  row("P99 time per output token", [](const Evaluated& e) { return ms_text(e.serving.p99_tpot_s); });
  row("P99 end to end", [](const Evaluated& e) { return duration_text(e.serving.p99_e2e_s); });
  row("output tokens/s", [&](const Evaluated& e) { return fixed(e.tokens_per_s, "%.0f"); });
  row(wafer ? "output tokens/s per system" : "output tokens/s per GPU",
      [&](const Evaluated& e) { return fixed(e.gpus ? e.tokens_per_s / e.gpus : 0, "%.0f"); });
  row("requests/s", [&](const Evaluated& e) { return fixed(e.serving.requests_per_s, "%.4g"); });
  row("requests meeting the SLO", [&](const Evaluated& e) { return fixed(100 * e.serving.goodput, "%.1f%%"); });
  if (columns.front()->priced) {
    row("cost per hour", [](const Evaluated& e) { return report::usd_text(e.serving.usd_per_hour); });
    row("cost per million output tokens",
        [](const Evaluated& e) { return report::usd_text(e.serving.usd_per_million_tokens); });
  }
  row("services simulated", [](const Evaluated& e) { return std::to_string(e.serving.evaluations); });
}

}  // namespace

void write_plan_summary(std::FILE* out, const PlanResult& r, int top) {
  std::map<Status, std::size_t> counts;
  for (const Evaluated& e : r.candidates) ++counts[e.status];
  std::string objectives;
  for (auto o : r.objectives) objectives += (objectives.empty() ? "" : ", ") + std::string(scenario::objective_name(o));
  std::fprintf(out, "plan: %zu candidates (%s: %s)\n", r.candidates.size(),
               r.objectives.size() > 1 ? "objectives" : "objective", objectives.c_str());
  int width = 16;
  for (const auto& [status, n] : counts) width = std::max(width, static_cast<int>(status_name(status).size()));
  for (const auto& [status, n] : counts) {
    std::fprintf(out, "  %-*s %zu\n", width, std::string(status_name(status)).c_str(), n);
  }
  if (r.ranking.empty()) {
    std::fprintf(out, "\nno candidate meets every constraint\n");
  } else {
    const std::size_t shown = std::min(r.ranking.size(), static_cast<std::size_t>(top));
    int width = 9;
    for (std::size_t k = 0; k < shown; ++k) {
      width = std::max(width, static_cast<int>(values_text(r, r.candidates[r.ranking[k]]).size()));
    }
    if (r.candidates[r.ranking.front()].service) {
      write_top_service(out, r, shown, width);
    } else {
      write_top_training(out, r, shown, width);
    }
    // Why the best wins: its step beside the runner-up's and beside the best candidate that a
    // constraint (deadline, budget, power) rejected.
    const Evaluated& best = r.candidates[r.ranking.front()];
    const Evaluated* runner_up = r.ranking.size() > 1 ? &r.candidates[r.ranking[1]] : nullptr;
    const Evaluated* rejected = nullptr;
    for (const Evaluated& e : r.candidates) {
      if (!e.simulated() || e.status == Status::kFeasible) continue;
      if (rejected == nullptr || objective_value(e, r.objective) < objective_value(*rejected, r.objective)) {
        rejected = &e;
      }
    }
    std::fprintf(out, "\nbest: %s\n", values_text(r, best).c_str());
    const Evaluated& w = r.as_written;
    if (r.as_written_rank > 0 && w.service) {
      std::fprintf(out, "  as written: %s ranks %zu of %zu feasible (%d replica%s, P99 E2E %s)\n",
                   values_text(r, w).c_str(), r.as_written_rank, r.ranking.size(), w.serving.replicas,
                   w.serving.replicas == 1 ? "" : "s", duration_text(w.serving.p99_e2e_s).c_str());
    } else if (r.as_written_rank > 0) {
      std::fprintf(out, "  as written: %s ranks %zu of %zu feasible (step %s, %.1f%% MFU)\n", values_text(r, w).c_str(),
                   r.as_written_rank, r.ranking.size(), duration_text(w.step_s).c_str(), 100 * w.mfu);
    } else {
      std::fprintf(out, "  as written: %s is %s: %s\n", values_text(r, w).c_str(),
                   std::string(status_name(w.status)).c_str(), w.reason.c_str());
    }
    if (runner_up) std::fprintf(out, "  runner-up: %s\n", values_text(r, *runner_up).c_str());
    if (rejected) {
      std::fprintf(out, "  best rejected: %s (%s: %s)\n", values_text(r, *rejected).c_str(),
                   std::string(status_name(rejected->status)).c_str(), rejected->reason.c_str());
    }
    std::vector<const Evaluated*> columns = {&best};
    if (runner_up) columns.push_back(runner_up);
    if (rejected) columns.push_back(rejected);
    if (best.service) {
      write_service_figures(out, columns, r.wafer);
    } else if (!r.wafer) {
      write_step_breakdowns(out, columns);
    }
  }
  if (!r.pareto.empty()) {
    std::fprintf(out, "\nPareto front (%s): %zu candidates, none beaten on one objective without losing on another\n",
                 objectives.c_str(), r.pareto.size());
    for (std::size_t i : r.pareto) {
      const Evaluated& e = r.candidates[i];
      if (e.service) {
        std::fprintf(out, "  %s: %d replica%s, %d %s, P99 E2E %s", values_text(r, e).c_str(), e.serving.replicas,
                     e.serving.replicas == 1 ? "" : "s", e.gpus, r.wafer ? "systems" : "GPUs",
                     duration_text(e.serving.p99_e2e_s).c_str());
        if (e.priced) std::fprintf(out, ", %s an hour", report::usd_text(e.serving.usd_per_hour).c_str());
        std::fprintf(out, "\n");
        continue;
      }
      std::fprintf(out, "  %s: step %s, time to train %s, MFU %.1f%%", values_text(r, e).c_str(),
                   duration_text(e.step_s).c_str(),
                   e.time_to_train_s > 0 ? duration_text(e.time_to_train_s).c_str() : "-", 100 * e.mfu);
      if (e.priced) std::fprintf(out, ", run cost %s", report::usd_text(e.usd_per_run).c_str());
      std::fprintf(out, "\n");
    }
  }
  // The first candidate of each kind of rejection, with why.
  std::map<Status, const Evaluated*> first;
  for (const Evaluated& e : r.candidates) {
    if (e.status != Status::kFeasible && first.find(e.status) == first.end()) first[e.status] = &e;
  }
  if (!first.empty()) std::fprintf(out, "\nrejected, the first of each kind:\n");
  for (const auto& [status, e] : first) {
    std::fprintf(out, "  %s: %s: %s\n", std::string(status_name(status)).c_str(), values_text(r, *e).c_str(),
                 e->reason.c_str());
  }
}

void write_plan_csv(std::ostream& out, const PlanResult& r) {
  std::vector<std::string> rank(r.candidates.size());
  for (std::size_t k = 0; k < r.ranking.size(); ++k) rank[r.ranking[k]] = std::to_string(k + 1);
  std::vector<char> pareto(r.candidates.size(), 0);
  for (std::size_t i : r.pareto) pareto[i] = 1;
  out << "index,rank,pareto";
  for (const auto& a : r.axes) out << "," << csv_field(a);
  const bool service = r.as_written.service;
  if (service) {
    out << ",status,reason,nodes,gpus,replicas,p99_ttft_s,p99_tpot_s,p99_e2e_s,tokens_per_s,requests_per_s,goodput,"
           "usd_per_hour,usd_per_million_tokens,capex_usd,facility_power_w\n";
  } else {
    out << ",status,reason,nodes,gpus,dp,step_s,time_to_train_s,mfu,tokens_per_s,peak_memory_bytes,capex_usd,"
           "usd_per_run,facility_power_w\n";
  }
  for (const Evaluated& e : r.candidates) {
    out << e.index << "," << rank[e.index] << "," << (pareto[e.index] ? "1" : "");
    for (const auto& v : e.values) out << "," << csv_field(v);
    std::string reason = e.reason;
    for (char& c : reason) {
      if (c == '\n') c = ' ';
    }
    out << "," << status_name(e.status) << "," << csv_field(reason) << "," << e.nodes << "," << e.gpus;
    if (service) {
      const ServiceFigures& f = e.serving;
      out << "," << f.replicas << "," << number(f.p99_ttft_s) << "," << number(f.p99_tpot_s) << ","
          << number(f.p99_e2e_s) << "," << number(e.tokens_per_s) << "," << number(f.requests_per_s) << ","
          << number(f.goodput) << "," << number(f.usd_per_hour) << "," << number(f.usd_per_million_tokens) << ","
          << number(e.capex_usd) << "," << number(e.facility_power_w) << "\n";
      continue;
    }
    out << "," << e.dp << "," << number(e.step_s) << "," << number(e.time_to_train_s) << "," << number(e.mfu) << ","
        << number(e.tokens_per_s) << "," << number(e.peak_memory_bytes) << "," << number(e.capex_usd) << ","
        << number(e.usd_per_run) << "," << number(e.facility_power_w) << "\n";
  }
}

}  // namespace fathom::plan
