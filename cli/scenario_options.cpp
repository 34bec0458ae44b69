#include "cli/scenario_options.hpp"

#include <stdexcept>

#include "scenarios/resource_estimate.hpp"
#include "scenarios/units.hpp"

namespace fathom::cli {

void add_max_memory_option(CLI::App& command, std::string& max_memory) {
  command.add_option("--max-memory", max_memory,
                     "refuse a run estimated to need more memory than this (default 16GiB; docs/scenarios.md, "
                     "\"Memory limit\")");
}

double parse_memory_limit(const std::string& max_memory) {
  if (max_memory.empty()) return scenario::kDefaultMemoryLimit;
  try {
    return static_cast<double>(scenario::parse_bytes(max_memory, scenario::Sign::kPositive));
  } catch (const scenario::UnitError& e) {
    throw std::invalid_argument("--max-memory: expected " + e.expected() + ", found \"" + max_memory + "\"");
  }
}

void add_scenario_options(CLI::App& command, ScenarioOptions& options) {
  command.add_option("scenario", options.file, "scenario file (YAML)")->required()->check(CLI::ExistingFile);
  command.add_option("--set", options.overrides, "override a scenario key: --set cluster.nodes=32 (repeatable)")
      ->take_all();
  add_max_memory_option(command, options.max_memory);
}

double memory_limit(const ScenarioOptions& options) { return parse_memory_limit(options.max_memory); }

scenario::Scenario load(const ScenarioOptions& options) {
  const double limit = memory_limit(options);
  scenario::Scenario s = scenario::load_scenario(options.file, options.overrides);
  scenario::require_within_memory(s, scenario::estimate_resources(s), limit);
  return s;
}

}  // namespace fathom::cli
