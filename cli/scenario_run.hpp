// What `simulate` and `topology` share: loading a scenario with its --set overrides, building
// its topology and traffic flows with their routes, and telling the user what the build warned of.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::cli {

struct ScenarioOptions {
  std::string file;
  std::vector<std::string> overrides;  // --set key=value
};

// Registers SCENARIO and --set on a subcommand.
void add_scenario_options(CLI::App& command, ScenarioOptions& options);

struct PreparedTraffic {
  scenario::Scenario scenario;
  topo::Topology topology;
  std::vector<net::FlowRequest> flows;
  std::vector<net::RoutedFlow> routes;
};

// Loads, builds and routes. Throws scenario::ScenarioError for bad input.
PreparedTraffic prepare_traffic(const ScenarioOptions& options);
// The same for a scenario already loaded.
PreparedTraffic prepare_traffic(scenario::Scenario scenario);

// The cluster's warnings (docs/topology.md, "Warnings"), one `fathom: warning: ...` line each on
// stderr.
void print_warnings(const topo::TopologySummary& summary);

// One `catalogs: ...` line naming each entry the scenario took from a user catalog and its file;
// nothing when every entry is built in.
void print_user_catalog_entries(std::FILE* out, const scenario::Scenario& s);

}  // namespace fathom::cli
