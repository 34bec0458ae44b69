// JsonWriter: a streaming JSON writer whose bytes depend only on the calls made to it.
//
// Results files must be byte-identical across runs, machines and thread counts (the
// fingerprint tests diff them), so nothing here depends on the locale, on hash order or on
// printf: numbers go through std::to_chars, doubles in their shortest round-trip form, and
// members come out in the order they were written. The writer checks its own grammar and
// throws std::logic_error on misuse, so a bug in a report writer fails loudly instead of
// producing a file that some other tool rejects later. Each call validates before it writes
// anything, so a call that throws leaves the stream exactly as it was.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fathom::sim {

enum class JsonLayout {
  kCompact,  // no whitespace at all
  kPretty,   // one member or element per line, indented by 2 spaces per level
};

class JsonWriter {
 public:
  static constexpr int kAllLevels = std::numeric_limits<int>::max();

  // With kPretty, containers nested deeper than `pretty_levels` (the outermost container is
  // level 1) are written compactly: pretty_levels = 2 gives one array element per line,
  // which keeps large files such as traces readable and diffable line by line.
  explicit JsonWriter(std::ostream& out, JsonLayout layout = JsonLayout::kCompact, int pretty_levels = kAllLevels);

  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();

  // The name of the next member; only inside an object, and exactly once before each value.
  void key(std::string_view name);

  // Strings must be valid UTF-8 (std::invalid_argument otherwise): JSON text is Unicode and
  // an invalid byte would make the whole file unreadable to strict parsers. Quotes,
  // backslashes and control characters are escaped (\n, \t, \r, \b, \f, the others and DEL
  // as \u00XX); everything else, non-ASCII included, passes through as UTF-8.
  void value(std::string_view s);
  void value(const char* s);  // a null pointer is std::invalid_argument, not an empty string
  void value(bool b);
  void value(std::int64_t n);
  void value(std::uint64_t n);
  // Non-finite values throw std::invalid_argument naming the key: JSON has no NaN or infinity.
  void value(double x);
  void value(std::nullptr_t);

  // Other integer types (int, unsigned, long long, ...) would be ambiguous between the
  // overloads above; this forwards them to the 64-bit ones. Characters are excluded on
  // purpose: value('a') printing 97 would surprise.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char> && !std::same_as<T, signed char> &&
           !std::same_as<T, unsigned char> && !std::same_as<T, char8_t> && !std::same_as<T, char16_t> &&
           !std::same_as<T, char32_t> && !std::same_as<T, wchar_t>) void value(T n) {
    if constexpr (std::is_signed_v<T>) {
      value(static_cast<std::int64_t>(n));
    } else {
      value(static_cast<std::uint64_t>(n));
    }
  }

  // A number already rendered as JSON text, written verbatim: for exact decimals that no
  // double can hold, such as trace timestamps in microseconds with nanosecond digits.
  // Throws std::invalid_argument unless the text follows JSON's number grammar.
  void raw_number(std::string_view json_number);

  // key(name) then value(v).
  template <class T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  // True once one complete top-level value has been written.
  bool complete() const { return root_written_ && frames_.empty(); }

 private:
  struct Frame {
    bool is_object = false;
    bool pretty = false;
    bool has_key = false;   // key() was called and its value has not started yet
    std::size_t count = 0;  // members or elements started so far
    std::string key;        // the latest key, kept for error messages
  };

  void require_value_position(const char* what) const;
  void start_value();  // writes the separator, indentation and pending key; counts the value
  void begin_container(bool is_object);
  void end_container(bool is_object);
  void write_indent(std::size_t levels);
  void write_string(std::string_view s);
  std::string location() const;  // e.g. "traceEvents[3].args.bytes", for error messages

  std::ostream& out_;
  JsonLayout layout_;
  int pretty_levels_;
  bool root_written_ = false;
  std::vector<Frame> frames_;
};

}  // namespace fathom::sim
