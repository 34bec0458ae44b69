// `fathom plan --json FILE`: every candidate with its full figures (the step's breakdown too),
// the ranking and the Pareto front, for scripts and notebooks (docs/plan.md, "Output").
#include <array>
#include <string>
#include <utility>

#include "plan/plan_report.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::plan {

namespace {

void write_candidate(sim::JsonWriter& j, const PlanResult& r, const Evaluated& e, std::size_t rank, bool pareto) {
  j.begin_object();
  j.member("index", e.index);
  if (rank > 0) {
    j.member("rank", rank);
  } else {
    j.key("rank");
    j.value(nullptr);
  }
  j.member("pareto", pareto);
  j.key("values");
  j.begin_object();
  for (std::size_t a = 0; a < r.axes.size() && a < e.values.size(); ++a) j.member(r.axes[a], e.values[a]);
  j.end_object();
  j.member("status", status_name(e.status));
  j.member("reason", e.reason);
  j.member("nodes", e.nodes);
  j.member("gpus", e.gpus);
  j.member("dp", e.dp);
  j.member("peak_memory_bytes", e.peak_memory_bytes);
  if (e.service) {
    const ServiceFigures& f = e.serving;
    j.member("replicas", f.replicas);
    j.member("services_simulated", f.evaluations);
    if (e.simulated()) {
      j.member("p99_ttft_s", f.p99_ttft_s);
      j.member("p99_tpot_s", f.p99_tpot_s);
      j.member("p99_e2e_s", f.p99_e2e_s);
      j.member("tokens_per_s", e.tokens_per_s);
      j.member("requests_per_s", f.requests_per_s);
      j.member("goodput", f.goodput);
      if (e.priced) {
        j.member("capex_usd", e.capex_usd);
        j.member("facility_power_w", e.facility_power_w);
        j.member("usd_per_gpu_hour", e.usd_per_gpu_hour);
        j.member("usd_per_hour", f.usd_per_hour);
        j.member("usd_per_million_tokens", f.usd_per_million_tokens);
      }
    }
  } else if (e.simulated()) {
    j.member("step_s", e.step_s);
    j.member("time_to_train_s", e.time_to_train_s);
    j.member("mfu", e.mfu);
    j.member("tokens_per_s", e.tokens_per_s);
    const train::StepBreakdown& b = e.breakdown;
    const std::array<std::pair<const char*, double>, 9> parts = {{{"compute", b.compute},
                                                                  {"tp", b.tp},
                                                                  {"cp", b.cp},
                                                                  {"ep", b.ep},
                                                                  {"pp", b.pp},
                                                                  {"bubble", b.bubble},
                                                                  {"dp", b.dp},
                                                                  {"optimizer", b.optimizer},
                                                                  {"straggler", b.straggler}}};
    j.key("breakdown_s");
    j.begin_object();
    for (const auto& [name, seconds] : parts) j.member(name, seconds);
    j.end_object();
    if (e.priced) {
      j.member("capex_usd", e.capex_usd);
      j.member("usd_per_run", e.usd_per_run);
      j.member("facility_power_w", e.facility_power_w);
      j.member("usd_per_gpu_hour", e.usd_per_gpu_hour);
    }
  }
  j.end_object();
}

}  // namespace

void write_plan_json(std::ostream& out, const PlanResult& r) {
  std::vector<std::size_t> rank(r.candidates.size(), 0);
  for (std::size_t k = 0; k < r.ranking.size(); ++k) rank[r.ranking[k]] = k + 1;
  std::vector<char> pareto(r.candidates.size(), 0);
  for (std::size_t i : r.pareto) pareto[i] = 1;
  // One candidate per line: a plan's file stays readable and diffable line by line.
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 2);
  j.begin_object();
  j.key("objectives");
  j.begin_array();
  for (auto o : r.objectives) j.value(scenario::objective_name(o));
  j.end_array();
  j.key("axes");
  j.begin_array();
  for (const auto& a : r.axes) j.value(a);
  j.end_array();
  j.member("candidates", r.candidates.size());
  j.key("ranking");
  j.begin_array();
  for (std::size_t i : r.ranking) j.value(i);
  j.end_array();
  j.key("pareto");
  j.begin_array();
  for (std::size_t i : r.pareto) j.value(i);
  j.end_array();
  j.key("as_written");
  write_candidate(j, r, r.as_written, r.as_written_rank, false);
  j.key("results");
  j.begin_array();
  for (const Evaluated& e : r.candidates) write_candidate(j, r, e, rank[e.index], pareto[e.index] != 0);
  j.end_array();
  j.end_object();
  out << "\n";
}

}  // namespace fathom::plan
