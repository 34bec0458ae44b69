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
  std::string max_memory;              // --max-memory SIZE; empty: scenario::kDefaultMemoryLimit
};

// Registers SCENARIO, --set and --max-memory on a subcommand.
void add_scenario_options(CLI::App& command, ScenarioOptions& options);

// The scenario the options name, loaded with its overrides, and refused when what it would hold
// in memory passes the limit (scenario::ScenarioError for bad input).
scenario::Scenario load(const ScenarioOptions& options);

// --max-memory in bytes (std::invalid_argument naming the flag for a bad size).
double memory_limit(const ScenarioOptions& options);

// --max-memory on a command without a scenario argument (calibrate, validate), and its value in
// bytes ("": scenario::kDefaultMemoryLimit; std::invalid_argument naming the flag).
void add_max_memory_option(CLI::App& command, std::string& max_memory);
double parse_memory_limit(const std::string& max_memory);

}  // namespace fathom::cli
