// CSV files the commands write. Every one has a header row, names hosts and links by their
// topology names, and prints times in seconds with 17 significant digits (enough to
// round-trip a double), so another tool or simulator can replay or compare them.
#pragma once

#include <ostream>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "topologies/topology.hpp"

namespace fathom::report {

// id,src,dst,bytes,start_s,finish_s
void write_flows_csv(std::ostream& out, const topo::Topology& topology, const std::vector<net::FlowRequest>& flows,
                     const std::vector<net::FlowOutcome>& outcomes);
// name,from,to,bytes_per_s,latency_ns
void write_links_csv(std::ostream& out, const topo::Topology& topology);
// id,links (link names joined by ';')
void write_routes_csv(std::ostream& out, const topo::Topology& topology, const std::vector<net::FlowRequest>& flows,
                      const std::vector<net::RoutedFlow>& routes);
// name,from,to,bytes,utilisation: bytes carried, and bytes / (capacity x makespan)
void write_link_usage_csv(std::ostream& out, const topo::Topology& topology, const std::vector<double>& link_bytes,
                          sim::SimTime makespan);

// time_s,link,bytes_per_s,utilisation: each change of a link's load, in time order
void write_link_timeline_csv(std::ostream& out, const topo::Topology& topology,
                             const std::vector<net::LinkLoadSample>& samples);

}  // namespace fathom::report
