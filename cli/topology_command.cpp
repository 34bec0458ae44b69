// `fathom topology SCENARIO`: what the scenario's cluster is made of, its links and the
// routes of its workload's flows.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "cli/csv_outputs.hpp"
#include "cli/scenario_run.hpp"
#include "scenarios/units.hpp"
#include "sim/output/atomic_file.hpp"

namespace fathom::cli {

namespace {

struct TopologyOptions {
  ScenarioOptions scenario;
  std::string links;
  std::string routes;
};

void run_topology(const TopologyOptions& o) {
  const PreparedTraffic p = prepare_traffic(o.scenario);
  const auto& t = p.topology;
  const auto& s = t.summary;
  std::printf("%s\n\n", s.description.c_str());
  print_warnings(s);
  std::map<std::string, std::size_t> vertices, links;
  for (const auto& v : t.vertices()) ++vertices[std::string(topo::to_string(v.kind))];
  for (const auto& l : t.links()) ++links[std::string(topo::to_string(l.cls))];
  std::printf("vertices: %zu (", t.vertices().size());
  const char* sep = "";
  for (const auto& [kind, n] : vertices) std::printf("%s%zu %s", std::exchange(sep, ", "), n, kind.c_str());
  std::printf(")\nlinks:    %zu directed (", t.links().size());
  sep = "";
  for (const auto& [cls, n] : links) std::printf("%s%zu %s", std::exchange(sep, ", "), n, cls.c_str());
  std::printf(")\n\n  tier  switches  cables (up to this tier)  oversubscription\n");
  const std::size_t tiers = std::max(s.switches_per_tier.size(), s.cables_per_tier.size());
  for (std::size_t i = 0; i < tiers; ++i) {
    std::printf("  %4zu  %8zu  %23zu  %16.2f\n", i, i < s.switches_per_tier.size() ? s.switches_per_tier[i] : 0,
                i < s.cables_per_tier.size() ? s.cables_per_tier[i] : 0,
                i < s.oversubscription_per_tier.size() ? s.oversubscription_per_tier[i] : 1.0);
  }
  std::printf("\nendpoints: %zu; bisection bandwidth: %s (one direction)\n", s.endpoints,
              scenario::format_bytes_per_s(s.bisection_bytes_per_s).c_str());
  if (!o.links.empty()) {
    sim::write_file_atomically(o.links, [&](std::ostream& out) { write_links_csv(out, t); });
  }
  if (!o.routes.empty()) {
    sim::write_file_atomically(o.routes, [&](std::ostream& out) { write_routes_csv(out, t, p.flows, p.routes); });
  }
}

}  // namespace

void add_topology_command(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand("topology", "describe the cluster a scenario builds");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("--links", options->links, "write every directed link (CSV: name,from,to,bytes_per_s,latency_ns)");
  cmd->add_option("--routes", options->routes, "write the route of every flow of the workload (CSV: id,links)");
  cmd->callback([options] { run_topology(*options); });
}

}  // namespace fathom::cli
