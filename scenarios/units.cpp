#include "scenarios/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace fathom::scenario {
namespace {

// Exact integer arithmetic for sizes and durations: digits (< 10^19) times a unit factor
// (< 2^50) fits with room to spare, so no intermediate step rounds.
__extension__ using U128 = unsigned __int128;

// Exponents beyond this are out of range for every quantity; clamping keeps the arithmetic
// on them from overflowing.
constexpr std::int64_t kExponentClamp = 100'000;
constexpr std::size_t kMaxExactDigits = 19;

// A unit: value in SI = number * 10^pow10 * factor * 2^pow2. Factor holds the binary
// prefixes (1024^k) and minutes, hours and days; pow2 = -3 turns bits into bytes.
struct Unit {
  std::string name;
  int pow10 = 0;
  std::uint64_t factor = 1;
  int pow2 = 0;
};

// A number split from its unit.
struct Number {
  bool negative = false;
  std::string_view mantissa;  // digits with an optional point: "3.35", ".5", "5."
  std::int64_t exponent = 0;  // the e-part, clamped to +-kExponentClamp
  std::string_view unit;      // what follows, after optional spaces
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, then the unit. The e-part is
// taken only when digits follow, so "5EFLOPS" is 5 EFLOPS, not a broken exponent.
std::optional<Number> split_number(std::string_view text, bool allow_sign) {
  Number n;
  std::size_t i = 0;
  if (allow_sign && i < text.size() && (text[i] == '+' || text[i] == '-')) {
    n.negative = text[i] == '-';
    ++i;
  }
  const std::size_t start = i;
  std::size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  n.mantissa = text.substr(start, i - start);
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    bool negative_exponent = false;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) negative_exponent = text[j++] == '-';
    if (j < text.size() && is_digit(text[j])) {
      std::int64_t e = 0;
      for (; j < text.size() && is_digit(text[j]); ++j) e = std::min(e * 10 + (text[j] - '0'), kExponentClamp);
      n.exponent = negative_exponent ? -e : e;
      i = j;
    }
  }
  while (i < text.size() && is_space(text[i])) ++i;
  n.unit = text.substr(i);
  return n;
}

// The number as digits * 10^exponent with the digits in an integer; nullopt when it has more
// significant digits than an exact computation holds.
struct Exact {
  std::uint64_t digits = 0;
  std::int64_t exponent = 0;
};

std::optional<Exact> to_exact(const Number& n) {
  std::string d;
  std::int64_t fraction_digits = 0;
  bool after_point = false;
  for (const char c : n.mantissa) {
    if (c == '.') {
      after_point = true;
      continue;
    }
    if (after_point) ++fraction_digits;
    d += c;
  }
  const auto first = d.find_first_not_of('0');
  if (first == std::string::npos) return Exact{};
  d.erase(0, first);
  std::int64_t exponent = n.exponent - fraction_digits;
  while (d.back() == '0') d.pop_back(), ++exponent;
  if (d.size() > kMaxExactDigits) return std::nullopt;
  std::uint64_t digits = 0;
  for (const char c : d) digits = digits * 10 + static_cast<std::uint64_t>(c - '0');
  return Exact{digits, exponent};
}

enum class Rounding { kMustBeWhole, kNearestEven };
enum class Scaled { kOk, kTooLarge, kNotWhole };

// value * 10^e as a magnitude that fits an int64, exactly or rounded to the nearest.
Scaled scale_exact(U128 value, std::int64_t e, Rounding rounding, std::uint64_t& out) {
  constexpr U128 kLimit = static_cast<U128>(std::numeric_limits<std::int64_t>::max());
  out = 0;
  if (value == 0) return Scaled::kOk;
  if (e >= 0) {
    for (std::int64_t i = 0; i < e; ++i) {
      if (value > kLimit / 10) return Scaled::kTooLarge;
      value *= 10;
    }
    if (value > kLimit) return Scaled::kTooLarge;
    out = static_cast<std::uint64_t>(value);
    return Scaled::kOk;
  }
  // value < 2^114 here, so dividing by 10^39 or more leaves less than a half.
  if (-e > 38) return rounding == Rounding::kMustBeWhole ? Scaled::kNotWhole : Scaled::kOk;
  U128 divisor = 1;
  for (std::int64_t i = 0; i < -e; ++i) divisor *= 10;
  U128 quotient = value / divisor;
  const U128 remainder = value % divisor;
  if (rounding == Rounding::kMustBeWhole && remainder != 0) return Scaled::kNotWhole;
  if (2 * remainder > divisor || (2 * remainder == divisor && (quotient & 1) != 0)) ++quotient;
  if (quotient > kLimit) return Scaled::kTooLarge;
  out = static_cast<std::uint64_t>(quotient);
  return Scaled::kOk;
}

// The number times 10^shift10 * factor * 2^shift2, correctly rounded from the decimal text;
// NaN when it is out of the range of a double.
double to_double(const Number& n, int shift10, std::uint64_t factor, int shift2) {
  std::string s(n.mantissa);
  s += 'e';
  s += std::to_string(n.exponent + shift10);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::numeric_limits<double>::quiet_NaN();
  // factor and 2^shift2 are powers of two or small integers: exact unless out of range.
  v = std::ldexp(v * static_cast<double>(factor), shift2);
  if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  return n.negative ? -v : v;
}

struct Phrase {
  const char* noun;
  const char* examples;
  bool vowel;  // takes "an"
};

Phrase phrase_of(Quantity q) {
  switch (q) {
    case Quantity::kBandwidth:
      return {"bandwidth", "400Gbps, 50GB/s or 3.35TB/s", false};
    case Quantity::kBytes:
      return {"size", "80GiB, 512MB or 4KiB", false};
    case Quantity::kCount:
      return {"whole number", "4096 or 1e8", false};
    case Quantity::kNumber:
      return {"number", "0.5 or 2.5e-3", false};
    case Quantity::kDuration:
      return {"duration", "2us, 1.5ms or 30s", false};
    case Quantity::kFlopRate:
      return {"FLOP rate", "989TFLOPS or 1.98PFLOPS", false};
    case Quantity::kPower:
      return {"power", "700W or 10.2kW", false};
    case Quantity::kUsd:
      return {"amount in US dollars", "$2.50 or $1.5e6", true};
    case Quantity::kUsdPerHour:
      return {"price per hour", "$2.50/h", false};
  }
  return {"value", "", false};
}

std::string phrase(Quantity q, const char* adjective) {
  const Phrase p = phrase_of(q);
  std::string out = adjective != nullptr ? std::string("a ") + adjective + " " : std::string(p.vowel ? "an " : "a ");
  out += p.noun;
  out += " such as ";
  out += p.examples;
  return out;
}

[[noreturn]] void fail(Quantity q, std::string_view text, std::string hint = {}) {
  throw UnitError(expected_quantity(q, Sign::kAny), std::string(text), std::move(hint));
}

// Rejects a value of the wrong sign, naming the sign that was asked for.
void check_sign(Quantity q, Sign sign, bool negative, bool zero, std::string_view text) {
  if (sign == Sign::kPositive && (negative || zero)) throw UnitError(phrase(q, "positive"), std::string(text));
  if (sign == Sign::kNonNegative && negative && !zero) throw UnitError(phrase(q, "non-negative"), std::string(text));
}

const std::vector<std::pair<std::string, int>>& decimal_prefixes() {
  static const std::vector<std::pair<std::string, int>> prefixes = {{"", 0},  {"K", 3},  {"k", 3}, {"M", 6},
                                                                    {"G", 9}, {"T", 12}, {"P", 15}};
  return prefixes;
}

const std::vector<std::pair<std::string, std::uint64_t>>& binary_prefixes() {
  static const std::vector<std::pair<std::string, std::uint64_t>> prefixes = {
      {"Ki", 1ULL << 10}, {"Mi", 1ULL << 20}, {"Gi", 1ULL << 30}, {"Ti", 1ULL << 40}, {"Pi", 1ULL << 50}};
  return prefixes;
}

const std::vector<Unit>& bandwidth_units() {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const auto& [prefix, pow10] : decimal_prefixes())
      for (const char* suffix : {"bps", "b/s", "bit/s"}) u.push_back({prefix + suffix, pow10, 1, -3});
    for (const auto& [prefix, pow10] : decimal_prefixes()) u.push_back({prefix + "B/s", pow10, 1, 0});
    for (const auto& [prefix, factor] : binary_prefixes()) u.push_back({prefix + "B/s", 0, factor, 0});
    return u;
  }();
  return units;
}

const std::vector<Unit>& byte_units() {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const auto& [prefix, pow10] : decimal_prefixes()) u.push_back({prefix + "B", pow10, 1, 0});
    for (const auto& [prefix, factor] : binary_prefixes()) u.push_back({prefix + "B", 0, factor, 0});
    return u;
  }();
  return units;
}

const std::vector<Unit>& duration_units() {
  // In nanoseconds. "µ" is the micro sign U+00B5, "μ" the Greek mu U+03BC: both get typed.
  static const std::vector<Unit> units = {{"ns", 0, 1, 0},      {"us", 3, 1, 0},    {"\u00b5s", 3, 1, 0},
                                          {"\u03bcs", 3, 1, 0}, {"ms", 6, 1, 0},    {"s", 9, 1, 0},
                                          {"min", 9, 60, 0},    {"h", 9, 3'600, 0}, {"d", 9, 86'400, 0}};
  return units;
}

const std::vector<Unit>& flop_units() {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const auto& [prefix, pow10] : decimal_prefixes())
      for (const char* suffix : {"FLOPS", "FLOP/s"}) u.push_back({prefix + suffix, pow10, 1, 0});
    for (const char* suffix : {"EFLOPS", "EFLOP/s"}) u.push_back({suffix, 18, 1, 0});
    return u;
  }();
  return units;
}

const std::vector<Unit>& power_units() {
  static const std::vector<Unit> units = {{"W", 0, 1, 0}, {"kW", 3, 1, 0}, {"MW", 6, 1, 0}, {"GW", 9, 1, 0}};
  return units;
}

const Unit* find_unit(const std::vector<Unit>& units, std::string_view name) {
  for (const Unit& u : units)
    if (u.name == name) return &u;
  return nullptr;
}

// Lower case, and "/s" and "bit/s" folded into "ps", so that "gb/s", "GBps" and "Gbit/s"
// all meet the units they were probably meant as.
std::string fold(std::string_view unit) {
  std::string s;
  for (const char c : unit) s += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  for (const char* from : {"bit/s", "/s"}) {
    for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from)) {
      s.replace(pos, std::string_view(from).size(), from[0] == 'b' ? "bps" : "ps");
    }
  }
  return s;
}

// "units are case-sensitive: did you mean "Gbps" or "GB/s"?" when the unit matches known
// units but for case; one suggestion per distinct meaning.
std::string case_hint(const std::vector<Unit>& units, std::string_view unit, bool bits_and_bytes) {
  if (unit.empty()) return {};
  const std::string folded = fold(unit);
  std::vector<const Unit*> matches;
  for (const Unit& u : units) {
    if (fold(u.name) != folded) continue;
    bool same_meaning = false;
    for (const Unit* m : matches) same_meaning |= m->pow10 == u.pow10 && m->factor == u.factor && m->pow2 == u.pow2;
    if (!same_meaning) matches.push_back(&u);
  }
  if (matches.empty()) return {};
  std::string hint = bits_and_bytes ? "units are case-sensitive (b = bits, B = bytes): did you mean "
                                    : "units are case-sensitive: did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) hint += i + 1 == matches.size() ? " or " : ", ";
    hint += '"' + matches[i]->name + '"';
  }
  return hint + "?";
}

struct Parsed {
  Number number;
  const Unit* unit;
};

// Number and unit from a table; anything else throws with the best hint available.
Parsed parse_with_units(std::string_view text, Quantity q, const std::vector<Unit>& units, bool bits_and_bytes) {
  const std::string_view t = trim(text);
  const auto n = split_number(t, true);
  if (!n) fail(q, text);
  if (n->unit.empty()) fail(q, text, "a unit is required, for example " + std::string(phrase_of(q).examples));
  const Unit* unit = find_unit(units, n->unit);
  if (unit == nullptr) {
    std::string hint = case_hint(units, n->unit, bits_and_bytes);
    if (hint.empty() && q == Quantity::kDuration && n->unit == "m")
      hint = "write min for minutes or ms for milliseconds";
    fail(q, text, std::move(hint));
  }
  return {*n, unit};
}

double parse_double_quantity(std::string_view text, Sign sign, Quantity q, const std::vector<Unit>& units,
                             bool bits_and_bytes) {
  const Parsed p = parse_with_units(text, q, units, bits_and_bytes);
  const double v = to_double(p.number, p.unit->pow10, p.unit->factor, p.unit->pow2);
  if (std::isnan(v)) fail(q, text, "the number is out of range");
  check_sign(q, sign, v < 0, v == 0, text);
  return v;
}

// An integer quantity computed exactly from the decimal digits.
std::int64_t exact_integer(const Number& n, std::int64_t pow10, std::uint64_t factor, Rounding rounding, Quantity q,
                           Sign sign, std::string_view text, const char* not_whole_hint) {
  const auto exact = to_exact(n);
  if (!exact) fail(q, text, "use at most 19 significant digits");
  std::uint64_t magnitude = 0;
  switch (scale_exact(static_cast<U128>(exact->digits) * factor, exact->exponent + pow10, rounding, magnitude)) {
    case Scaled::kOk:
      break;
    case Scaled::kTooLarge:
      fail(q, text, "the number is out of range");
    case Scaled::kNotWhole:
      fail(q, text, not_whole_hint);
  }
  check_sign(q, sign, n.negative, magnitude == 0, text);
  return n.negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
}

double parse_money(std::string_view text, Sign sign, bool per_hour) {
  const Quantity q = per_hour ? Quantity::kUsdPerHour : Quantity::kUsd;
  std::string_view t = trim(text);
  bool negative = false;
  bool signed_before = false;
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
    negative = t.front() == '-';
    signed_before = true;
    t.remove_prefix(1);
  }
  if (t.empty() || t.front() != '$') {
    fail(q, text, split_number(t, !signed_before) ? "write amounts of money with a dollar sign, such as $2.50" : "");
  }
  t = trim(t.substr(1));
  auto n = split_number(t, !signed_before);
  if (!n) fail(q, text);
  if (per_hour && n->unit != "/h") fail(q, text, n->unit.empty() ? "a price per hour ends in /h, such as $2.50/h" : "");
  if (!per_hour && !n->unit.empty())
    fail(q, text, n->unit == "/h" ? "this is an amount, not a price per hour: drop the /h" : "");
  n->negative = n->negative || negative;
  const double v = to_double(*n, 0, 1, 0);
  if (std::isnan(v)) fail(q, text, "the number is out of range");
  check_sign(q, sign, v < 0, v == 0, text);
  return v;
}

// "%.4g <unit>" with the largest unit not above the value.
std::string format_scaled(double value, const std::vector<std::pair<double, const char*>>& units) {
  std::size_t chosen = 0;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (std::fabs(value) >= units[i].first) chosen = i;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s", value / units[chosen].first, units[chosen].second);
  return buf;
}

}  // namespace

UnitError::UnitError(std::string expected, std::string found, std::string hint)
    : std::invalid_argument("expected " + expected + ", found \"" + found + "\"" +
                            (hint.empty() ? std::string() : " (" + hint + ")")),
      expected_(std::move(expected)),
      found_(std::move(found)),
      hint_(std::move(hint)) {}

std::string expected_quantity(Quantity quantity, Sign sign) {
  return phrase(quantity, sign == Sign::kPositive ? "positive" : nullptr);
}

double parse_bytes_per_s(std::string_view text, Sign sign) {
  return parse_double_quantity(text, sign, Quantity::kBandwidth, bandwidth_units(), true);
}

std::int64_t parse_bytes(std::string_view text, Sign sign) {
  const Parsed p = parse_with_units(text, Quantity::kBytes, byte_units(), true);
  return exact_integer(p.number, p.unit->pow10, p.unit->factor, Rounding::kMustBeWhole, Quantity::kBytes, sign, text,
                       "a size is a whole number of bytes");
}

std::int64_t parse_count(std::string_view text, Sign sign) {
  const auto n = split_number(trim(text), true);
  if (!n) fail(Quantity::kCount, text);
  if (!n->unit.empty()) fail(Quantity::kCount, text, "a count has no unit");
  return exact_integer(*n, 0, 1, Rounding::kMustBeWhole, Quantity::kCount, sign, text, "a count is a whole number");
}

double parse_number(std::string_view text, Sign sign) {
  const auto n = split_number(trim(text), true);
  if (!n) fail(Quantity::kNumber, text);
  if (!n->unit.empty()) fail(Quantity::kNumber, text, "a plain number has no unit");
  const double v = to_double(*n, 0, 1, 0);
  if (std::isnan(v)) fail(Quantity::kNumber, text, "the number is out of range");
  check_sign(Quantity::kNumber, sign, v < 0, v == 0, text);
  return v;
}

sim::SimTime parse_duration(std::string_view text, Sign sign) {
  const Parsed p = parse_with_units(text, Quantity::kDuration, duration_units(), false);
  return sim::SimTime::from_ns(exact_integer(p.number, p.unit->pow10, p.unit->factor, Rounding::kNearestEven,
                                             Quantity::kDuration, sign, text, ""));
}

double parse_flops(std::string_view text, Sign sign) {
  return parse_double_quantity(text, sign, Quantity::kFlopRate, flop_units(), false);
}

double parse_watts(std::string_view text, Sign sign) {
  return parse_double_quantity(text, sign, Quantity::kPower, power_units(), false);
}

double parse_usd(std::string_view text, Sign sign) { return parse_money(text, sign, false); }

double parse_usd_per_hour(std::string_view text, Sign sign) { return parse_money(text, sign, true); }

std::string format_bytes_per_s(double bytes_per_s) {
  static const std::vector<std::pair<double, const char*>> units = {{1, "B/s"},    {1e3, "KB/s"},  {1e6, "MB/s"},
                                                                    {1e9, "GB/s"}, {1e12, "TB/s"}, {1e15, "PB/s"}};
  return format_scaled(bytes_per_s, units);
}

std::string format_bytes(std::int64_t bytes) {
  if (bytes > -1024 && bytes < 1024) return std::to_string(bytes) + " B";
  static const std::vector<std::pair<double, const char*>> units = {{1, "B"},        {0x1p10, "KiB"}, {0x1p20, "MiB"},
                                                                    {0x1p30, "GiB"}, {0x1p40, "TiB"}, {0x1p50, "PiB"}};
  return format_scaled(static_cast<double>(bytes), units);
}

std::string format_duration(sim::SimTime duration) {
  if (duration.ns() == 0) return "0 s";
  static const std::vector<std::pair<double, const char*>> units = {
      {1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}, {60e9, "min"}, {3600e9, "h"}, {86400e9, "d"}};
  return format_scaled(static_cast<double>(duration.ns()), units);
}

}  // namespace fathom::scenario
