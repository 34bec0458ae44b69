// Where a command's words go: `--quiet` (only errors), `--verbose` (also what was read, how long
// each phase took, every file written). Its files go through cli/outputs.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "scenarios/scenario.hpp"
#include "topologies/topology.hpp"

namespace fathom::cli {

// --quiet/-q and --verbose/-v, accepted after any command.
void add_verbosity_options(CLI::App& app);
bool quiet();
bool verbose();

// "fathom: MESSAGE" on standard error, with --verbose only.
void note(const std::string& message);

// The cluster's warnings on standard error (`fathom: warning: ...`), except with --quiet.
void warn(const topo::TopologySummary& summary);

// With --verbose: the scenario, its overrides and the user catalogs it was loaded with.
void note_loaded(const scenario::Scenario& s);

// "wall clock: <s> s" on standard error, then "peak memory: <m> MiB" (the process's largest
// resident set so far, from getrusage), except with --quiet. Neither goes to standard output or a
// file: they differ from run to run, and the outputs must not.
void print_wall_clock(double seconds);

}  // namespace fathom::cli
