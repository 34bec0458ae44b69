// Test helpers for loading whole scenarios: write a scenario (or any input file) into a
// scratch folder, and load one that must fail.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "scenarios/scenario.hpp"

namespace fathom::test {

// Writes `text` to `name` in a scratch folder and returns its path. Files written together
// share the folder, so a scenario can name a flows file beside it.
inline std::string write_scratch_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "fathom-scenario-tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// The text of a file of the source tree, by its path from the repository root.
inline std::string read_source_file(const std::string& path) {
  std::ifstream in(std::string(FATHOM_SOURCE_DIR) + "/" + path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error loading the scenario `text`, which must fail.
inline scenario::ScenarioError load_error(const std::string& text) {
  try {
    scenario::load_scenario(write_scratch_file("bad.yaml", text));
  } catch (const scenario::ScenarioError& e) {
    return e;
  }
  FAIL("the scenario loaded although it is wrong");
  throw std::logic_error("unreachable");
}

}  // namespace fathom::test
