#include "cli/scenario_run.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "topologies/cluster.hpp"

namespace fathom::cli {

void add_scenario_options(CLI::App& command, ScenarioOptions& options) {
  command.add_option("scenario", options.file, "scenario file (YAML)")->required()->check(CLI::ExistingFile);
  command.add_option("--set", options.overrides, "override a scenario key: --set cluster.nodes=32 (repeatable)")
      ->take_all();
}

PreparedTraffic prepare_traffic(const ScenarioOptions& options) {
  return prepare_traffic(scenario::load_scenario(options.file, options.overrides));
}

PreparedTraffic prepare_traffic(scenario::Scenario scenario) {
  PreparedTraffic p;
  p.scenario = std::move(scenario);
  p.topology = topo::build_cluster(p.scenario.cluster);
  p.flows = scenario::traffic_flows(p.scenario, p.topology);
  topo::Router router(p.topology);
  p.routes = net::route_flows(p.topology, router, p.flows, p.scenario.seed);
  return p;
}

void print_user_catalog_entries(std::FILE* out, const scenario::Scenario& s) {
  std::string line;
  for (const auto& e : s.catalog_entries) {
    if (e.file.rfind("<built-in>", 0) == 0) continue;
    line += (line.empty() ? "" : ", ") + e.kind + " " + e.name + " from " + e.file;
  }
  if (!line.empty()) std::fprintf(out, "catalogs: %s\n", line.c_str());
}

void print_warnings(const topo::TopologySummary& summary) {
  for (const auto& w : summary.warnings) std::fprintf(stderr, "fathom: warning: %s\n", w.message.c_str());
}

}  // namespace fathom::cli
