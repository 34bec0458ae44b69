#include "report/traffic/traffic_run.hpp"

#include <utility>

#include "topologies/cluster.hpp"

namespace fathom::report {

PreparedTraffic prepare_traffic(scenario::Scenario scenario) {
  PreparedTraffic p;
  p.scenario = std::move(scenario);
  p.topology = topo::build_cluster(p.scenario.cluster);
  p.flows = scenario::traffic_flows(p.scenario, p.topology);
  topo::Router router(p.topology);
  p.routes = net::route_flows(p.topology, router, p.flows, p.scenario.seed);
  return p;
}

}  // namespace fathom::report
