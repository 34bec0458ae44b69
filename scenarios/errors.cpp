#include "scenarios/errors.hpp"

#include <algorithm>
#include <cstdio>

namespace fathom::scenario {
namespace {

// Long enough for any real value, short enough that a pasted blob does not flood the terminal.
constexpr std::size_t kMaxFoundChars = 80;

// Appends `c`, escaping what would break a one-line message: control bytes, and a NUL that
// would cut what() short. Bytes >= 0x80 pass through so that UTF-8 such as "µs" stays readable.
void append_escaped(std::string& out, char c) {
  const auto byte = static_cast<unsigned char>(c);
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      break;
  }
  if (byte < 0x20 || byte == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(byte));
    out += buf;
  } else {
    out += c;
  }
}

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) append_escaped(out, c);
  return out;
}

// Every part is escaped: file names from `--set` and keys from the YAML may hold any byte.
std::string compose(const Location& location, std::string_view key_path, std::string_view expected,
                    std::string_view found, std::string_view hint) {
  std::string out = escaped(format_location(location, key_path));
  out += "expected ";
  out += escaped(expected);
  out += ", found ";
  out += escaped(found);
  if (!hint.empty()) {
    out += "\n  ";
    out += escaped(hint);
  }
  return out;
}

}  // namespace

ScenarioError::ScenarioError(Location location, std::string key_path, std::string expected, std::string found,
                             std::string hint)
    : std::runtime_error(compose(location, key_path, expected, found, hint)),
      location_(std::move(location)),
      key_path_(std::move(key_path)),
      expected_(std::move(expected)),
      found_(std::move(found)),
      hint_(std::move(hint)) {}

namespace {

// `text` with control bytes escaped and cut after kMaxFoundChars characters (never inside a
// UTF-8 character); with `quoted`, its quotes and backslashes escaped too.
std::string shortened(std::string_view text, bool quoted) {
  std::string out;
  std::size_t shown = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (shown >= kMaxFoundChars && (byte & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    ++shown;
    if (quoted && (c == '"' || c == '\\')) out += '\\';
    append_escaped(out, c);
  }
  return out;
}

}  // namespace

std::string quote_found(std::string_view text) { return "\"" + shortened(text, true) + "\""; }

std::string format_position(const Location& location) {
  // A file name, or an override's whole text ("--set key=value"), which may be as long as
  // its value: that one is shortened like a value found.
  std::string out = location.file.rfind("--set ", 0) == 0 ? shortened(location.file, false) : location.file;
  if (!out.empty() && location.line > 0) {
    out += ':' + std::to_string(location.line);
    if (location.column > 0) out += ':' + std::to_string(location.column);
  }
  return out;
}

std::string format_location(const Location& location, std::string_view key_path) {
  std::string out = format_position(location);
  if (!out.empty()) out += ": ";
  if (!key_path.empty()) {
    out += key_path;
    out += ": ";
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic programme at a time: keys are short, but no need for a matrix.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view found, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, found.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(found, c);
    if (d > 0 && d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  return best == nullptr ? std::string() : "did you mean " + quote_found(*best) + "?";
}

}  // namespace fathom::scenario
