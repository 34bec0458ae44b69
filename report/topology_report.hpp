// `fathom topology`: what a cluster is made of, for the terminal.
#pragma once

#include <cstdio>

#include "topologies/topology.hpp"

namespace fathom::report {

// The description, the warnings (on stderr), vertices and links by kind, switches, cables and
// oversubscription per tier, endpoints and bisection bandwidth.
void write_topology_description(std::FILE* out, const topo::Topology& topology);
// Its two lines of vertices and links by kind.
void write_topology_counts(std::FILE* out, const topo::Topology& topology);

}  // namespace fathom::report
