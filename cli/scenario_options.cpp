#include "cli/scenario_options.hpp"

namespace fathom::cli {

void add_scenario_options(CLI::App& command, ScenarioOptions& options) {
  command.add_option("scenario", options.file, "scenario file (YAML)")->required()->check(CLI::ExistingFile);
  command.add_option("--set", options.overrides, "override a scenario key: --set cluster.nodes=32 (repeatable)")
      ->take_all();
}

scenario::Scenario load(const ScenarioOptions& options) {
  return scenario::load_scenario(options.file, options.overrides);
}

}  // namespace fathom::cli
