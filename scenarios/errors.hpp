// ScenarioError: the one exception the scenario loader throws for bad input. It carries
// where the input is wrong (file, 1-based line and column, key path), what was expected
// and what was found, so that `main` can print it and exit non-zero.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::scenario {

// Where a value came from. Line and column are 1-based; 0 means unknown (a value set by a
// `--set` override, or an empty file), and the message then leaves them out.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

// what() reads, on one line plus an optional hint line:
//   pilot.yaml:12:7: cluster.fabric.hosts_per_leaf: expected a positive integer, found "-3"
//     did you mean "hosts_per_leaf"?
class ScenarioError : public std::runtime_error {
 public:
  // `found` is printed as given: a scalar quoted by quote_found(), or a description such as
  // "a sequence". `hint` may be empty.
  ScenarioError(Location location, std::string key_path, std::string expected, std::string found,
                std::string hint = {});

  const Location& location() const { return location_; }
  const std::string& file() const { return location_.file; }
  int line() const { return location_.line; }
  int column() const { return location_.column; }
  const std::string& key_path() const { return key_path_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }
  const std::string& hint() const { return hint_; }

 private:
  Location location_;
  std::string key_path_;
  std::string expected_;
  std::string found_;
  std::string hint_;
};

// `text` in double quotes, as written, with control and non-ASCII-unsafe bytes escaped and
// long text shortened, so that a message stays on one line whatever the input holds.
std::string quote_found(std::string_view text);

// "pilot.yaml:12:7", or fewer parts where line or column are unknown.
std::string format_position(const Location& location);

// "pilot.yaml:12:7: key.path: " (the parts that are known), the prefix of every message.
std::string format_location(const Location& location, std::string_view key_path);

// Levenshtein distance: insertions, deletions and substitutions of single bytes.
std::size_t edit_distance(std::string_view a, std::string_view b);

// `did you mean "hosts_per_leaf"?` for the candidate nearest to `found`, when it is near
// enough to be a typo: distance at most max(2, length of found / 3); ties go to the earlier
// candidate. Empty when none is.
std::string did_you_mean(std::string_view found, const std::vector<std::string>& candidates);

}  // namespace fathom::scenario
