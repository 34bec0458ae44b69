// A scenario's text written to a file of the system's temporary folder, for tests that load or
// plan a scenario by its path, and the key its loading error names.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/scenario.hpp"

namespace fathom::test {

// Writes `text` to <temp>/<folder>/<name> (the folder made when missing) and returns its path.
inline std::string write_temp_scenario(const std::string& folder, const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// The key path of the error loading `file` gives, or "(loaded)" when it loads.
inline std::string load_error_key(const std::string& file) {
  try {
    scenario::load_scenario(file);
  } catch (const scenario::ScenarioError& e) {
    return e.key_path();
  }
  return "(loaded)";
}

}  // namespace fathom::test
