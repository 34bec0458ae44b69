// `fathom simulate SCENARIO`: runs the scenario's workload and prints a report.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "cli/csv_outputs.hpp"
#include "cli/output_file.hpp"
#include "cli/scenario_run.hpp"
#include "cli/training_report.hpp"
#include "scenarios/units.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/simulation.hpp"
#include "sim/stats/histogram.hpp"

namespace fathom::cli {

namespace {

struct SimulateOptions {
  ScenarioOptions scenario;
  std::string flows_out;
  std::string links_out;
  std::string link_timeline;
  TrainingOutputs training;
  std::int64_t seed = -1;  // --seed: overrides the scenario's
};

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

void run_simulate(const SimulateOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  scenario::Scenario loaded = scenario::load_scenario(o.scenario.file, o.scenario.overrides);
  if (o.seed >= 0) loaded.seed = static_cast<std::uint64_t>(o.seed);
  if (loaded.workload == scenario::WorkloadKind::kTraining) {
    TrainingOutputs outputs = o.training;
    if (outputs.json.empty()) outputs.json = loaded.output_json;
    if (outputs.trace.empty()) outputs.trace = loaded.output_trace;
    const int code = run_training(loaded, outputs);
    std::fprintf(stderr, "wall clock: %.3f s\n",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (code != kExitOk) throw ExitWith{code};
    return;
  }
  if (!o.training.json.empty() || !o.training.trace.empty()) {
    throw std::invalid_argument("--json and --trace apply to training workloads; use --flows-out and --links-out");
  }
  const PreparedTraffic p = prepare_traffic(std::move(loaded));
  if (p.scenario.workload != scenario::WorkloadKind::kTraffic) {
    const auto it = p.scenario.locations.find("workload.kind");
    throw scenario::ScenarioError(
        it == p.scenario.locations.end() ? scenario::Location{p.scenario.file, 0, 0} : it->second, "workload.kind",
        "traffic for `fathom simulate`", "nccl-tests", "run it with `fathom nccl-tests`");
  }
  const net::TransferResult r =
      net::simulate_transfers(p.topology, p.flows, p.routes, p.scenario.seed, !o.link_timeline.empty());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  sim::ExactQuantiles fct;
  double total_bytes = 0;
  for (std::size_t i = 0; i < p.flows.size(); ++i) {
    fct.add((r.flows[i].finish - p.flows[i].start).to_seconds());
    total_bytes += p.flows[i].bytes;
  }
  std::size_t busiest = 0;
  for (std::size_t l = 1; l < r.link_bytes.size(); ++l) {
    if (r.link_bytes[l] / p.topology.link(static_cast<topo::LinkId>(l)).bytes_per_s >
        r.link_bytes[busiest] / p.topology.link(static_cast<topo::LinkId>(busiest)).bytes_per_s) {
      busiest = l;
    }
  }
  // With an output on standard output ("-") the human report moves to standard error.
  const int to_stdout =
      (is_stdout(o.flows_out) ? 1 : 0) + (is_stdout(o.links_out) ? 1 : 0) + (is_stdout(o.link_timeline) ? 1 : 0);
  if (to_stdout > 1) throw std::invalid_argument("only one of --flows-out, --links-out and --link-timeline can be -");
  std::FILE* out = to_stdout > 0 ? stderr : stdout;
  const auto& s = p.topology.summary;
  std::fprintf(out, "scenario: %s (seed %llu)\n", p.scenario.file.c_str(),
               static_cast<unsigned long long>(p.scenario.seed));
  std::fprintf(out, "cluster:  %s; bisection %s\n", s.description.c_str(),
               scenario::format_bytes_per_s(s.bisection_bytes_per_s).c_str());
  print_warnings(s);
  std::fprintf(out, "workload: traffic, %zu flows, %s in all\n", p.flows.size(),
               scenario::format_bytes(static_cast<std::int64_t>(total_bytes)).c_str());
  print_user_catalog_entries(out, p.scenario);
  std::fprintf(out, "\n");
  if (!p.flows.empty()) {
    std::fprintf(out, "  makespan                 %s\n", ms(r.makespan.to_seconds()).c_str());
    std::fprintf(out, "  flow completion time     mean %s, p50 %s, p99 %s, max %s\n", ms(fct.mean()).c_str(),
                 ms(fct.p50()).c_str(), ms(fct.p99()).c_str(), ms(fct.max()).c_str());
    if (r.makespan > sim::SimTime::zero()) {
      std::fprintf(out, "  aggregate throughput     %s over the makespan\n",
                   scenario::format_bytes_per_s(total_bytes / r.makespan.to_seconds()).c_str());
      const auto& l = p.topology.link(static_cast<topo::LinkId>(busiest));
      std::fprintf(out, "  busiest link             %s, %.1f%% utilised over the makespan\n", l.name.c_str(),
                   100.0 * r.link_bytes[busiest] / (l.bytes_per_s * r.makespan.to_seconds()));
    }
  }
  std::fprintf(out, "  events                   %llu (max-min re-ratings %llu, flows re-rated %llu)\n",
               static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.component_updates),
               static_cast<unsigned long long>(r.flow_rerates));
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(r.fingerprint).c_str());

  if (!o.flows_out.empty()) {
    write_output(o.flows_out, [&](std::ostream& out) { write_flows_csv(out, p.topology, p.flows, r.flows); });
  }
  if (!o.links_out.empty()) {
    write_output(o.links_out,
                 [&](std::ostream& out) { write_link_usage_csv(out, p.topology, r.link_bytes, r.makespan); });
  }
  if (!o.link_timeline.empty()) {
    write_output(o.link_timeline, [&](std::ostream& out) { write_link_timeline_csv(out, p.topology, r.link_loads); });
  }
  std::fprintf(stderr, "wall clock: %.3f s\n", wall_s);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "run a scenario and report what happened");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("--flows-out", options->flows_out, "write per-flow results (CSV: id,src,dst,bytes,start_s,finish_s)");
  cmd->add_option("--links-out", options->links_out, "write per-link bytes and utilisation (CSV)");
  cmd->add_option("--link-timeline", options->link_timeline,
                  "write every change of a link's load over time (CSV: time_s,link,bytes_per_s,utilisation)");
  cmd->add_option("--json", options->training.json, "training: write the full report as JSON (docs/report.md)");
  cmd->add_option("--trace", options->training.trace, "training: write a Chrome trace of one step (Perfetto)");
  cmd->add_option("--seed", options->seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_simulate(*options);
  });
}

}  // namespace fathom::cli
