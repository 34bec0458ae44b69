// A strict JSON parser for tests: checks that fathom's writers produce valid JSON and reads
// their output back.
//
// Written here rather than taken from a library so that it is strict in the ways the
// writers' tests need: RFC 8259 grammar only (no comments, trailing commas, NaN, leading
// zeros or raw control characters), valid UTF-8, duplicate keys rejected, trailing garbage
// rejected. Numbers keep their source text, so a test can check an exact decimal such as a
// trace timestamp "1234.567" or a 64-bit integer that a double cannot hold.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fathom::test {

class JsonParseError : public std::runtime_error {
 public:
  JsonParseError(const std::string& what, std::size_t offset)
      : std::runtime_error("JSON parse error at byte " + std::to_string(offset) + ": " + what), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class JsonValue {
 public:
  struct Number {
    std::string text;  // exactly as written in the source
    double value;      // the nearest double
  };
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;  // in source order
  using Data = std::variant<std::nullptr_t, bool, Number, std::string, Array, Object>;

  JsonValue() = default;
  explicit JsonValue(Data data) : data_(std::move(data)) {}

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(data_); }
  bool is_bool() const { return std::holds_alternative<bool>(data_); }
  bool is_number() const { return std::holds_alternative<Number>(data_); }
  bool is_string() const { return std::holds_alternative<std::string>(data_); }
  bool is_array() const { return std::holds_alternative<Array>(data_); }
  bool is_object() const { return std::holds_alternative<Object>(data_); }

  bool as_bool() const { return get<bool>("a bool"); }
  double as_double() const { return get<Number>("a number").value; }
  const std::string& number_text() const { return get<Number>("a number").text; }
  std::int64_t as_int64() const { return integer<std::int64_t>(); }
  std::uint64_t as_uint64() const { return integer<std::uint64_t>(); }
  const std::string& as_string() const { return get<std::string>("a string"); }
  const Array& as_array() const { return get<Array>("an array"); }
  const Object& as_object() const { return get<Object>("an object"); }

  // Array elements or object members.
  std::size_t size() const { return is_array() ? as_array().size() : as_object().size(); }
  const JsonValue& operator[](std::size_t i) const {
    const Array& a = as_array();
    if (i >= a.size()) throw std::out_of_range("JSON array index " + std::to_string(i) + " out of range");
    return a[i];
  }
  bool contains(std::string_view key) const {
    for (const auto& [k, v] : as_object()) {
      if (k == key) return true;
    }
    return false;
  }
  const JsonValue& operator[](std::string_view key) const {
    for (const auto& [k, v] : as_object()) {
      if (k == key) return v;
    }
    throw std::out_of_range("JSON object has no key \"" + std::string(key) + "\"");
  }

 private:
  template <class T>
  const T& get(const char* what) const {
    if (const T* p = std::get_if<T>(&data_)) return *p;
    throw std::logic_error(std::string("JSON value is not ") + what);
  }
  template <class T>
  T integer() const {
    const std::string& text = number_text();
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      throw std::logic_error("JSON number " + text + " is not an integer of the requested type");
    }
    return v;
  }

  Data data_;
};

namespace detail {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  JsonValue parse_document() {
    skip_space();
    JsonValue v = parse_value(0);
    skip_space();
    if (i_ != s_.size()) fail("trailing characters after the top-level value");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 512;  // deep enough for any report, shallow enough for the stack

  [[noreturn]] void fail(const std::string& what) const { throw JsonParseError(what, i_); }

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }

  void skip_space() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  void expect(char c) {
    if (peek() != c || at_end()) fail(std::string("expected '") + c + "'");
    ++i_;
  }

  void expect_word(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("expected " + std::string(word));
    i_ += word.size();
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (at_end()) fail("unexpected end of input");
    switch (s_[i_]) {
      case '{':
        return parse_object(depth);
      case '[':
        return parse_array(depth);
      case '"':
        return JsonValue(parse_string());
      case 't':
        expect_word("true");
        return JsonValue(true);
      case 'f':
        expect_word("false");
        return JsonValue(false);
      case 'n':
        expect_word("null");
        return JsonValue(nullptr);
      default:
        if (s_[i_] == '-' || (s_[i_] >= '0' && s_[i_] <= '9')) return parse_number();
        fail(std::string("unexpected character '") + s_[i_] + "'");
    }
  }

  JsonValue parse_object(int depth) {
    expect('{');
    JsonValue::Object members;
    skip_space();
    if (peek() == '}' && !at_end()) {
      ++i_;
      return JsonValue(std::move(members));
    }
    for (;;) {
      skip_space();
      if (peek() != '"' || at_end()) fail("expected a string key");
      std::string key = parse_string();
      for (const auto& m : members) {
        if (m.first == key) fail("duplicate key \"" + key + "\"");
      }
      skip_space();
      expect(':');
      skip_space();
      JsonValue v = parse_value(depth + 1);
      members.emplace_back(std::move(key), std::move(v));
      skip_space();
      if (peek() == ',' && !at_end()) {
        ++i_;
        continue;
      }
      expect('}');
      return JsonValue(std::move(members));
    }
  }

  JsonValue parse_array(int depth) {
    expect('[');
    JsonValue::Array elements;
    skip_space();
    if (peek() == ']' && !at_end()) {
      ++i_;
      return JsonValue(std::move(elements));
    }
    for (;;) {
      skip_space();
      elements.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ',' && !at_end()) {
        ++i_;
        continue;
      }
      expect(']');
      return JsonValue(std::move(elements));
    }
  }

  JsonValue parse_number() {
    const std::size_t start = i_;
    const auto digits = [&] {
      if (at_end() || s_[i_] < '0' || s_[i_] > '9') fail("expected a digit");
      while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    };
    if (peek() == '-') ++i_;
    if (peek() == '0' && !at_end()) {
      ++i_;  // a leading zero stands alone: "01" is not JSON
    } else {
      digits();
    }
    if (peek() == '.' && !at_end()) {
      ++i_;
      digits();
    }
    if ((peek() == 'e' || peek() == 'E') && !at_end()) {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      digits();
    }
    JsonValue::Number n{std::string(s_.substr(start, i_ - start)), 0.0};
    const auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), n.value);
    // Out of range (1e999) is an error rather than infinity: the writers never produce it.
    if (ec != std::errc() || end != n.text.data() + n.text.size()) fail("number " + n.text + " is out of range");
    return JsonValue(std::move(n));
  }

  unsigned parse_hex4() {
    if (s_.size() - i_ < 4) fail("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("bad hex digit in \\u escape");
      }
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Copies one UTF-8 sequence starting at i_, rejecting overlong forms, surrogates and
  // code points above U+10FFFF.
  void copy_utf8(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[i_]);
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      fail("invalid UTF-8 lead byte");
    }
    if (s_.size() - i_ < len) fail("truncated UTF-8 sequence");
    const auto b1 = static_cast<unsigned char>(s_[i_ + 1]);
    if (b1 < lo || b1 > hi) fail("invalid UTF-8 sequence");
    for (std::size_t k = 2; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s_[i_ + k]);
      if (b < 0x80 || b > 0xBF) fail("invalid UTF-8 continuation byte");
    }
    out.append(s_.substr(i_, len));
    i_ += len;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) fail("raw control character in a string");
      if (c >= 0x80) {
        copy_utf8(out);
        continue;
      }
      ++i_;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (at_end()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = parse_hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(i_, 2) != "\\u") fail("high surrogate without a low one");
            i_ += 2;
            const unsigned low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail(std::string("unknown escape \\") + e);
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace detail

// Parses a whole document; throws JsonParseError (with the byte offset) on anything that
// is not strict JSON.
inline JsonValue parse_json(std::string_view text) { return detail::JsonParser(text).parse_document(); }

}  // namespace fathom::test
