// `fathom topology SCENARIO`: what the scenario's cluster is made of, its links and the
// routes of its workload's flows.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "cli/csv_outputs.hpp"
#include "cli/output_file.hpp"
#include "cli/scenario_run.hpp"
#include "scenarios/units.hpp"
#include "scenarios/user_catalogs.hpp"

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
  // With an output on standard output ("-") the description moves to standard error.
  if (is_stdout(o.links) && is_stdout(o.routes)) throw std::invalid_argument("--links and --routes cannot both be -");
  std::FILE* out = is_stdout(o.links) || is_stdout(o.routes) ? stderr : stdout;
  std::fprintf(out, "%s\n\n", s.description.c_str());
  print_warnings(s);
  std::map<std::string, std::size_t> vertices, links;
  for (const auto& v : t.vertices()) ++vertices[std::string(topo::to_string(v.kind))];
  for (const auto& l : t.links()) ++links[std::string(topo::to_string(l.cls))];
  std::fprintf(out, "vertices: %zu (", t.vertices().size());
  const char* sep = "";
  for (const auto& [kind, n] : vertices) std::fprintf(out, "%s%zu %s", std::exchange(sep, ", "), n, kind.c_str());
  std::fprintf(out, ")\nlinks:    %zu directed (", t.links().size());
  sep = "";
  for (const auto& [cls, n] : links) std::fprintf(out, "%s%zu %s", std::exchange(sep, ", "), n, cls.c_str());
  std::fprintf(out, ")\n\n  tier  switches  cables (up to this tier)  oversubscription\n");
  const std::size_t tiers = std::max(s.switches_per_tier.size(), s.cables_per_tier.size());
  for (std::size_t i = 0; i < tiers; ++i) {
    std::fprintf(out, "  %4zu  %8zu  %23zu  %16.2f\n", i, i < s.switches_per_tier.size() ? s.switches_per_tier[i] : 0,
                 i < s.cables_per_tier.size() ? s.cables_per_tier[i] : 0,
                 i < s.oversubscription_per_tier.size() ? s.oversubscription_per_tier[i] : 1.0);
  }
  std::fprintf(out, "\nendpoints: %zu; bisection bandwidth: %s (one direction)\n", s.endpoints,
               scenario::format_bytes_per_s(s.bisection_bytes_per_s).c_str());
  if (!o.links.empty()) {
    write_output(o.links, [&](std::ostream& out) { write_links_csv(out, t); });
  }
  if (!o.routes.empty()) {
    write_output(o.routes, [&](std::ostream& out) { write_routes_csv(out, t, p.flows, p.routes); });
  }
}

}  // namespace

void add_topology_command(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand("topology", "describe the cluster a scenario builds");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("--links", options->links, "write every directed link (CSV: name,from,to,bytes_per_s,latency_ns)");
  cmd->add_option("--routes", options->routes, "write the route of every flow of the workload (CSV: id,links)");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_topology(*options);
  });
}

}  // namespace fathom::cli
