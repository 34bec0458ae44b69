// Declared parameters: each spec struct lists its scalar parameters once (key, quantity, member,
// one-line doc, source, and the name calibration fits it under), and every consumer reads that
// list: the scenario loader and --set (scenarios/declared_reader.hpp), the calibration profile
// writer, the fit's parameter names, and the generated key tables of docs/parameters.md.
// The default of a parameter is its member's initialiser in the struct: the declaration reads it
// from a default-constructed spec, so it is written in one place.
#pragma once

#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fathom::params {

// What a value is and how it is written: the loader parses the unit, the writers print it.
enum class Quantity {
  kDuration,        // integer nanoseconds; written with a time unit ("5us")
  kSeconds,         // a duration held as seconds (double); written with a time unit
  kBytes,           // integer bytes; written with a size unit ("512KiB")
  kBandwidth,       // bytes per second; written with a rate unit ("400Gbps")
  kFlops,           // FLOP per second; written with a rate unit ("989.5TFLOPS")
  kWatts,           // written with a power unit ("700W")
  kUsd,             // US dollars, written "$269010" or "$2.7e5"
  kUsdPerHour,      // US dollars per hour, written "$2.50/h"
  kFraction,        // 0 to 1; written as "0.9" or "90%"
  kNumber,          // a plain number ("3" for 3:1)
  kCount,           // a whole count that may be written in exponent form ("15e12")
  kPositiveInt,     // 1, 2, ...
  kNonNegativeInt,  // 0, 1, ...
  kBool,            // true or false
  kChoice,          // one of the words of Parameter::choices; get and set use its index
};

// A spec's member as a double, and back (whole numbers rounded, booleans as 0 and 1, an enum as
// its enumerator's index).
template <class T>
double to_double(T v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<double>(static_cast<std::underlying_type_t<T>>(v));
  } else {
    return static_cast<double>(v);
  }
}
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::llround(v));
  } else if constexpr (std::is_enum_v<T>) {  // a kChoice whose words follow the enumerators' order
    return static_cast<T>(std::llround(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class Spec>
struct Parameter {
  std::string_view key;  // the key under the spec's section; "efficiency.ring" is nested
  Quantity quantity;
  double (*get)(const Spec&);
  void (*set)(Spec&, double);
  std::string_view doc;            // one line: what it means
  std::string_view source;         // where the default comes from
  std::string_view fit_name = {};  // the name `fathom calibrate` fits it under; empty: never fitted
  std::string_view choices = {};   // kChoice: the words, space-separated
  bool positive = false;           // 0 is rejected
  double max = std::numeric_limits<double>::infinity();  // larger values are rejected
  // A full catalog entry must give every key (read_declared's `required`) but this one, which
  // keeps its default there.
  bool optional_in_entry = false;

  double default_value() const { return get(Spec{}); }
};

// The words of a kChoice parameter's `choices`.
inline std::vector<std::string_view> choice_words(std::string_view choices) {
  std::vector<std::string_view> words;
  while (!choices.empty()) {
    const std::size_t space = choices.find(' ');
    if (space != 0) words.push_back(choices.substr(0, space));
    if (space == std::string_view::npos) break;
    choices.remove_prefix(space + 1);
  }
  return words;
}

// The declared parameter with `key` (or fit name, with `by_fit_name`), or nullptr.
template <class Spec>
const Parameter<Spec>* find(const std::vector<Parameter<Spec>>& declared, std::string_view key,
                            bool by_fit_name = false) {
  for (const auto& p : declared) {
    if ((by_fit_name ? p.fit_name : p.key) == key) return &p;
  }
  return nullptr;
}

}  // namespace fathom::params

// The get and set functions of a Parameter for the spec's member `member` (a path such as
// efficiency.ring).
#define FATHOM_PARAMETER_MEMBER(Spec, member)                          \
  [](const Spec& s) { return ::fathom::params::to_double(s.member); }, \
      [](Spec& s, double v) { s.member = ::fathom::params::from_double<std::remove_cvref_t<decltype(s.member)>>(v); }

// The get and set functions of a kChoice Parameter whose member takes one of two values: choice 0
// (the first word of `choices`) is `first`, choice 1 is `second`.
#define FATHOM_PARAMETER_EITHER(Spec, member, first, second)      \
  [](const Spec& s) { return s.member == (second) ? 1.0 : 0.0; }, \
      [](Spec& s, double v) { s.member = v == 0 ? (first) : (second); }
