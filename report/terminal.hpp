// Lines every terminal report shares.
#pragma once

#include <cstdio>

#include "scenarios/scenario.hpp"
#include "topologies/topology.hpp"

namespace fathom::report {

// The cluster's warnings (docs/topology.md, "Warnings"), one `fathom: warning: ...` line each on
// stderr.
void print_warnings(const topo::TopologySummary& summary);

// One `catalogs: ...` line naming each entry the scenario took from a user catalog and its file;
// nothing when every entry is built in.
void print_user_catalog_entries(std::FILE* out, const scenario::Scenario& s);

}  // namespace fathom::report
