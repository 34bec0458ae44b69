// The first cells of a line of one of fathom's validation tables, whose quoted cells (sources
// and notes, which hold commas) come after the ones a test reads.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace fathom::test {

// The first `n` comma-separated cells of `line`.
inline std::vector<std::string> first_cells(const std::string& line, std::size_t n) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (cells.size() < n && std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

}  // namespace fathom::test
