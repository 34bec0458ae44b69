// Where a command's words go. `--quiet` (only errors), `--verbose` (also what was read, how long
// each phase took, every file written) and each command's `-o/--output`: the command's main
// output (its report or table) written to a file instead of standard output.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <ostream>
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

// The command's main output, printed by `write`: into `path` (-o FILE; written whole or not at
// all), else on standard output, or standard error when another output took standard output
// (`stdout_taken`); nothing with --quiet unless -o names a file.
void emit(const std::string& path, bool stdout_taken, const std::function<void(std::FILE*)>& write);

// A file output (--json, --flows-out, ...): report::write_output, noted with --verbose.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// The cluster's warnings on standard error (`fathom: warning: ...`), except with --quiet.
void warn(const topo::TopologySummary& summary);

// With --verbose: the scenario, its overrides and the user catalogs it was loaded with.
void note_loaded(const scenario::Scenario& s);

// "wall clock: <s> s" on standard error since `started`, except with --quiet.
void print_wall_clock(double seconds);

}  // namespace fathom::cli
