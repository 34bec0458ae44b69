// Test helpers for the calibration parsers: paths into data/calibration-data/, reading and
// writing files, and catching the ParseError an input must give.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "calibrate/errors.hpp"

namespace fathom::calib::test {

inline std::filesystem::path data_path(const std::string& relative) {
  return std::filesystem::path(FATHOM_SOURCE_DIR) / "data" / "calibration-data" / relative;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::string data_text(const std::string& relative) { return read_text(data_path(relative)); }

// Writes `text` to `name` in a scratch folder (`folder` under the system's temporary folder)
// and returns its path.
inline std::filesystem::path write_scratch(const std::string& name, const std::string& text,
                                           const std::string& folder = "fathom-calibrate-tests") {
  const auto dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The ParseError `parse` throws; the test fails when it throws none.
template <typename F>
ParseError parse_error(F&& parse) {
  try {
    parse();
  } catch (const ParseError& e) {
    return e;
  }
  FAIL("the input parsed although it is wrong");
  throw std::logic_error("unreachable");
}

// `text` with every "\n" replaced by "\r\n".
inline std::string with_crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// `text` with the first occurrence of `from` replaced by `to`; the test fails if there is none.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "text to replace not found: " << from);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace fathom::calib::test
