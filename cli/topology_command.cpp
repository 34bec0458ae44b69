// `fathom topology SCENARIO`: what the scenario's cluster is made of, its links and the
// routes of its workload's flows.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "report/cost/cost_report.hpp"
#include "report/output_file.hpp"
#include "report/topology_report.hpp"
#include "report/traffic/csv_tables.hpp"
#include "report/traffic/traffic_run.hpp"
#include "report/wafer/wafer_report.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct TopologyOptions {
  ScenarioOptions scenario;
  std::string output;  // -o: the description
  std::string links;
  std::string routes;
};

void run_topology(const TopologyOptions& o) {
  using report::is_stdout;
  if (is_stdout(o.links) && is_stdout(o.routes)) throw std::invalid_argument("--links and --routes cannot both be -");
  Outputs outputs{{"-o", o.output}, {"--links", o.links}, {"--routes", o.routes}};
  const scenario::Scenario s = load(o.scenario);
  note_loaded(s);
  if (s.wafer_scale && s.workload == scenario::WorkloadKind::kInference) {
    if (!o.routes.empty() || !o.links.empty()) {
      throw std::invalid_argument(
          "--links and --routes: a wafer-scale service's links are its systems' I/O (docs/wafer.md)");
    }
    outputs.report(o.output, false, [&](std::FILE* out) { report::write_wafer_serving_topology(out, s); });
    outputs.commit();
    return;
  }
  if (s.workload == scenario::WorkloadKind::kWaferTraining) {
    // A wafer-scale cluster's fabric: MemoryX, the SwarmX tree and the systems. Its streams are
    // broadcasts and reductions along the tree, not routed flows.
    if (!o.routes.empty())
      throw std::invalid_argument("--routes: a wafer-scale cluster's streams follow its SwarmX tree");
    outputs.report(o.output, is_stdout(o.links), [&](std::FILE* out) { report::write_wafer_topology(out, s); });
    if (!o.links.empty()) outputs.file(o.links, [&](std::ostream& out) { report::write_wafer_links_csv(out, s); });
    outputs.commit();
    return;
  }
  const report::PreparedTraffic p = report::prepare_traffic(s);
  warn(p.topology.summary);
  // With an output on standard output ("-") the description moves to standard error.
  outputs.report(o.output, is_stdout(o.links) || is_stdout(o.routes), [&](std::FILE* out) {
    report::write_topology_description(out, p.topology);
    // With a `cost:` section, the cluster priced with every accelerator busy.
    if (s.cost) report::write_cost_summary(out, report::price_cluster(s, report::peak_usage(s)), *s.cost);
  });
  if (!o.links.empty()) outputs.file(o.links, [&](std::ostream& out) { report::write_links_csv(out, p.topology); });
  if (!o.routes.empty()) {
    outputs.file(o.routes, [&](std::ostream& out) { report::write_routes_csv(out, p.topology, p.flows, p.routes); });
  }
  outputs.commit();
}

}  // namespace

void add_topology_command(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand("topology", "describe the cluster a scenario builds");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("-o,--output", options->output, "write the description to this file instead of standard output");
  cmd->add_option("--links", options->links, "write every directed link (CSV: name,from,to,bytes_per_s,latency_ns)");
  cmd->add_option("--routes", options->routes, "write the route of every flow of the workload (CSV: id,links)");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_topology(*options);
  });
}

}  // namespace fathom::cli
