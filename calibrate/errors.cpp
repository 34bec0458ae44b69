#include "calibrate/errors.hpp"

#include <cstdio>

namespace fathom::calib {
namespace {

// Enough for any real value or table row; a pasted blob is cut.
constexpr std::size_t kMaxQuoted = 100;

// Appends `c`, escaping bytes that would break a one-line message or cut what() short.
// Bytes >= 0x80 pass through so that UTF-8 text stays readable.
void append_visible(std::string& out, char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else if (byte < 0x20 || byte == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(byte));
    out += buf;
  } else {
    out += c;
  }
}

std::string visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) append_visible(out, c);
  return out;
}

std::string compose(const std::string& file, int line, const std::string& field, const std::string& expected,
                    const std::string& found) {
  std::string out = visible(file);
  if (line > 0) out += ':' + std::to_string(line);
  if (!out.empty()) out += ": ";
  if (!field.empty()) out += visible(field) + ": ";
  out += "expected " + visible(expected) + ", found " + visible(found);
  return out;
}

}  // namespace

ParseError::ParseError(std::string file, int line, std::string field, std::string expected, std::string found)
    : std::runtime_error(compose(file, line, field, expected, found)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      expected_(std::move(expected)),
      found_(std::move(found)) {}

std::string quote(std::string_view text) {
  std::string out = "\"";
  std::size_t shown = 0;
  for (const char c : text) {
    // Cut only at the start of a UTF-8 character, never inside one.
    if (shown >= kMaxQuoted && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    ++shown;
    if (c == '"' || c == '\\') out += '\\';
    append_visible(out, c);
  }
  out += '"';
  return out;
}

}  // namespace fathom::calib
