// A scenario's text written to a file of the system's temporary folder, for tests that load or
// plan a scenario by its path.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace fathom::test {

// Writes `text` to <temp>/<folder>/<name> (the folder made when missing) and returns its path.
inline std::string write_temp_scenario(const std::string& folder, const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace fathom::test
