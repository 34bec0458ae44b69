#include "sim/output/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace fathom::sim {

namespace {

// Index of the first byte that is not valid UTF-8, or s.size(). Rejects overlong forms,
// surrogates and code points above U+10FFFF, as RFC 3629 requires.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80;  // allowed range of the second byte
    unsigned char hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;  // overlong
      if (b0 == 0xED) hi = 0x9F;  // UTF-16 surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;  // overlong
      if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (s.size() - i < len) return i;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (b1 < lo || b1 > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < 0x80 || b > 0xBF) return i;
    }
    i += len;
  }
  return i;
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const auto digit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  const auto digits = [&] {
    if (!digit(i)) return false;
    while (digit(i)) ++i;
    return true;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

template <class T>
void write_number(std::ostream& out, T v) {
  // 32 bytes hold any 64-bit integer and the longest shortest-form double
  // ("-2.2250738585072014e-308" is 24).
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw std::logic_error("JsonWriter: number does not fit its buffer");
  out.write(buf, end - buf);
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out, JsonLayout layout, int pretty_levels)
    : out_(out), layout_(layout), pretty_levels_(pretty_levels) {}

std::string JsonWriter::location() const {
  if (frames_.empty()) return "the top-level value";
  std::string path;
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    const Frame& f = frames_[i];
    const bool innermost = i + 1 == frames_.size();
    if (f.is_object) {
      if (!path.empty()) path += '.';
      path += f.key;
    } else {
      // An enclosing array has already counted the element being written; the innermost
      // one counts it only once the value starts.
      const std::size_t index = innermost ? f.count : f.count - 1;
      path += '[' + std::to_string(index) + ']';
    }
  }
  return '"' + path + '"';
}

void JsonWriter::require_value_position(const char* what) const {
  if (frames_.empty()) {
    if (root_written_) {
      throw std::logic_error(std::string("JsonWriter: ") + what +
                             " after the top-level value was complete: a JSON document holds one value");
    }
    return;
  }
  const Frame& f = frames_.back();
  if (f.is_object && !f.has_key) {
    throw std::logic_error(std::string("JsonWriter: ") + what + " inside an object without a key() before it");
  }
}

void JsonWriter::start_value() {
  if (frames_.empty()) {
    root_written_ = true;
    return;
  }
  Frame& f = frames_.back();
  if (f.count > 0) out_.put(',');
  if (f.pretty) {
    out_.put('\n');
    write_indent(frames_.size());
  }
  if (f.is_object) {
    write_string(f.key);
    out_.put(':');
    if (f.pretty) out_.put(' ');
    f.has_key = false;
  }
  ++f.count;
}

void JsonWriter::write_indent(std::size_t levels) {
  static constexpr std::string_view kSpaces = "                                ";
  std::size_t n = 2 * levels;
  while (n > 0) {
    const std::size_t chunk = n < kSpaces.size() ? n : kSpaces.size();
    out_.write(kSpaces.data(), static_cast<std::streamsize>(chunk));
    n -= chunk;
  }
}

void JsonWriter::begin_container(bool is_object) {
  require_value_position(is_object ? "begin_object()" : "begin_array()");
  start_value();
  out_.put(is_object ? '{' : '[');
  Frame f;
  f.is_object = is_object;
  // frames_.size() + 1 is the new container's level; compared as size_t so that
  // kAllLevels needs no special case.
  f.pretty = layout_ == JsonLayout::kPretty && pretty_levels_ > 0 &&
             frames_.size() + 1 <= static_cast<std::size_t>(pretty_levels_);
  frames_.push_back(std::move(f));
}

void JsonWriter::end_container(bool is_object) {
  const char* what = is_object ? "end_object()" : "end_array()";
  if (frames_.empty()) throw std::logic_error(std::string("JsonWriter: ") + what + " with no container open");
  const Frame& f = frames_.back();
  if (f.is_object != is_object) {
    throw std::logic_error(std::string("JsonWriter: ") + what + " but the innermost open container is an " +
                           (f.is_object ? "object" : "array"));
  }
  if (f.has_key) {
    throw std::logic_error(std::string("JsonWriter: ") + what + " right after key(\"" + f.key +
                           "\"), which has no value");
  }
  const bool newline = f.pretty && f.count > 0;
  frames_.pop_back();
  if (newline) {
    out_.put('\n');
    write_indent(frames_.size());
  }
  out_.put(is_object ? '}' : ']');
}

void JsonWriter::begin_object() { begin_container(true); }
void JsonWriter::end_object() { end_container(true); }
void JsonWriter::begin_array() { begin_container(false); }
void JsonWriter::end_array() { end_container(false); }

void JsonWriter::key(std::string_view name) {
  if (frames_.empty() || !frames_.back().is_object) {
    throw std::logic_error("JsonWriter: key(\"" + std::string(name) + "\") outside an object");
  }
  Frame& f = frames_.back();
  if (f.has_key) {
    throw std::logic_error("JsonWriter: key(\"" + std::string(name) + "\") right after key(\"" + f.key +
                           "\"), which has no value");
  }
  const std::size_t bad = first_invalid_utf8(name);
  if (bad != name.size()) {
    throw std::invalid_argument("JsonWriter: a key is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  // assign() reuses the capacity, so steady-state writing allocates nothing here.
  f.key.assign(name);
  f.has_key = true;
}

void JsonWriter::value(std::string_view s) {
  require_value_position("a string value");
  const std::size_t bad = first_invalid_utf8(s);
  if (bad != s.size()) {
    throw std::invalid_argument("JsonWriter: the string for " + location() + " is not valid UTF-8 (byte " +
                                std::to_string(bad) + ")");
  }
  start_value();
  write_string(s);
}

void JsonWriter::value(const char* s) {
  if (s == nullptr) {
    require_value_position("a string value");
    throw std::invalid_argument("JsonWriter: a null const char* for " + location() +
                                "; write value(nullptr) for a JSON null");
  }
  value(std::string_view(s));
}

void JsonWriter::value(bool b) {
  require_value_position("a bool value");
  start_value();
  out_.write(b ? "true" : "false", b ? 4 : 5);
}

void JsonWriter::value(std::int64_t n) {
  require_value_position("a number value");
  start_value();
  write_number(out_, n);
}

void JsonWriter::value(std::uint64_t n) {
  require_value_position("a number value");
  start_value();
  write_number(out_, n);
}

void JsonWriter::value(double x) {
  require_value_position("a number value");
  if (!std::isfinite(x)) {
    throw std::invalid_argument(std::string("JsonWriter: ") +
                                (std::isnan(x) ? "NaN"
                                 : x > 0       ? "+infinity"
                                               : "-infinity") +
                                " for " + location() + ": JSON has no NaN or infinity");
  }
  start_value();
  // to_chars without a format or precision gives the shortest text that reads back as the
  // same double, independent of the locale; "-0", "1e+300" and "5e-324" are valid JSON.
  write_number(out_, x);
}

void JsonWriter::value(std::nullptr_t) {
  require_value_position("a null value");
  start_value();
  out_.write("null", 4);
}

void JsonWriter::raw_number(std::string_view json_number) {
  require_value_position("a number value");
  if (!is_json_number(json_number)) {
    throw std::invalid_argument("JsonWriter: \"" + std::string(json_number) + "\" for " + location() +
                                " is not a JSON number");
  }
  start_value();
  out_.write(json_number.data(), static_cast<std::streamsize>(json_number.size()));
}

void JsonWriter::write_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_.put('"');
  std::size_t run_start = 0;  // bytes that need no escape are written in runs
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    // DEL (0x7f) needs no escape in JSON, but Perfetto's trace tokenizer rejects it raw.
    if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\') continue;
    out_.write(s.data() + run_start, static_cast<std::streamsize>(i - run_start));
    run_start = i + 1;
    switch (c) {
      case '"':
        out_.write("\\\"", 2);
        break;
      case '\\':
        out_.write("\\\\", 2);
        break;
      case '\n':
        out_.write("\\n", 2);
        break;
      case '\t':
        out_.write("\\t", 2);
        break;
      case '\r':
        out_.write("\\r", 2);
        break;
      case '\b':
        out_.write("\\b", 2);
        break;
      case '\f':
        out_.write("\\f", 2);
        break;
      default: {
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out_.write(esc, 6);
      }
    }
  }
  out_.write(s.data() + run_start, static_cast<std::streamsize>(s.size() - run_start));
  out_.put('"');
}

}  // namespace fathom::sim
