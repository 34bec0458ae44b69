// The fathom command's subcommands. Each capability registers its own; main() lists only
// those that exist.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace fathom::cli {

// `fathom simulate SCENARIO`: runs a scenario and reports what happened.
void add_simulate_command(CLI::App& app);
// `fathom topology SCENARIO`: describes the cluster a scenario builds, its links and routes.
void add_topology_command(CLI::App& app);
// `fathom nccl-tests SCENARIO`: NVIDIA nccl-tests' sweep of one collective, simulated.
void add_nccl_tests_command(CLI::App& app);
// `fathom validate --scenario SCENARIO LOG...`: simulated nccl-tests against real logs.
void add_validate_command(CLI::App& app);
// `fathom calibrate INPUT... -o PROFILE`: fits a hardware profile to microbenchmarks.
void add_calibrate_command(CLI::App& app);
// `fathom plan SCENARIO`: searches the scenario's plan: section (docs/plan.md).
void add_plan_command(CLI::App& app);
// `fathom report SCENARIO`: the go-live report, the cluster against its acceptance criteria
// (docs/go-live.md).
void add_report_command(CLI::App& app);
// `fathom catalog list|show NAME`: the accelerators, switches, nodes and models a scenario can
// name, built-in and from user catalogs, with where each comes from.
void add_catalog_command(CLI::App& app);

// `--catalog DIR` (repeatable, accepted after any command): user catalog folders
// (scenarios/user_catalogs.hpp) every command searches before the built-in catalog. Each
// command's callback holds a scenario::ScopedCatalogs over catalog_folders() while it runs.
void add_catalog_option(CLI::App& app);
const std::vector<std::string>& catalog_folders();

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailedExpectation = 1;  // the run worked, a go-live criterion failed
constexpr int kExitBadInput = 2;           // the scenario, a flag or an input file is wrong
constexpr int kExitInternal = 3;           // a model broke an engine rule: a bug in fathom

// Thrown by a subcommand that finished its work but must exit with a non-zero code (a failed
// expectation); main() returns `code` after the outputs are written.
struct ExitWith {
  int code = kExitOk;
};

}  // namespace fathom::cli
