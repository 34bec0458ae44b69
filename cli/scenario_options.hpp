// The scenario argument every scenario command takes: the file and its --set overrides.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"

namespace fathom::cli {

struct ScenarioOptions {
  std::string file;
  std::vector<std::string> overrides;  // --set key=value
};

// Registers SCENARIO and --set on a subcommand.
void add_scenario_options(CLI::App& command, ScenarioOptions& options);

// The scenario the options name, loaded with its overrides (scenario::ScenarioError for bad input).
scenario::Scenario load(const ScenarioOptions& options);

}  // namespace fathom::cli
