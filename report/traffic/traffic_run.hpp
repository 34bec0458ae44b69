// A traffic scenario made ready to run: its topology built and its flows routed. `simulate`
// and `topology` share it.
#pragma once

#include <vector>

#include "models/network/flow_transfer.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::report {

struct PreparedTraffic {
  scenario::Scenario scenario;
  topo::Topology topology;
  std::vector<net::FlowRequest> flows;
  std::vector<net::RoutedFlow> routes;
};

// Builds the scenario's cluster and routes its flows. Throws scenario::ScenarioError for bad input.
PreparedTraffic prepare_traffic(scenario::Scenario scenario);

}  // namespace fathom::report
