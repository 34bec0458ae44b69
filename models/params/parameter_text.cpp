#include "models/params/parameter_text.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace fathom::params {

std::string number_text(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

namespace {

std::string whole(double v) { return std::to_string(std::llround(v)); }

std::string choice(double v, std::string_view choices) {
  const std::vector<std::string_view> words = choice_words(choices);
  const auto i = static_cast<std::size_t>(std::llround(v));
  return i < words.size() ? std::string(words[i]) : whole(v);
}

// `v` in the unit of `units` (name, size) that divides it exactly with the smallest quotient;
// the first unit when none divides it or it is 0.
std::string in_largest_unit(double v, std::initializer_list<std::pair<const char*, double>> units) {
  const std::int64_t n = std::llround(v);
  std::pair<const char*, double> best = *units.begin();
  for (const auto& u : units) {
    const auto size = static_cast<std::int64_t>(u.second);
    if (n != 0 && n % size == 0 && size > static_cast<std::int64_t>(best.second)) best = u;
  }
  return std::to_string(n / static_cast<std::int64_t>(best.second)) + best.first;
}

}  // namespace

std::string exact_text(Quantity quantity, double v, std::string_view choices) {
  switch (quantity) {
    case Quantity::kDuration:
      return whole(v) + "ns";
    case Quantity::kSeconds:
      return whole(v * 1e9) + "ns";
    case Quantity::kFlops:
      return number_text(v / 1e12) + "TFLOPS";
    case Quantity::kWatts:
      return number_text(v) + "W";
    case Quantity::kUsd:
      return "$" + number_text(v);
    case Quantity::kUsdPerHour:
      return "$" + number_text(v) + "/h";
    case Quantity::kBytes:
      return whole(v) + "B";
    case Quantity::kBandwidth:
      return number_text(v) + "B/s";
    case Quantity::kFraction:
    case Quantity::kNumber:
      return number_text(v);
    case Quantity::kPositiveInt:
    case Quantity::kNonNegativeInt:
      return whole(v);
    case Quantity::kCount:
      return std::abs(v) < 1e15 ? whole(v) : number_text(v);
    case Quantity::kBool:
      return v != 0 ? "true" : "false";
    case Quantity::kChoice:
      return choice(v, choices);
  }
  return number_text(v);
}

std::string readable_text(Quantity quantity, double v, std::string_view choices) {
  switch (quantity) {
    case Quantity::kDuration:
      return in_largest_unit(v, {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}});
    case Quantity::kBytes:
      return in_largest_unit(v, {{"B", 1},
                                 {"KB", 1e3},
                                 {"KiB", 1024.0},
                                 {"MB", 1e6},
                                 {"MiB", 1048576.0},
                                 {"GB", 1e9},
                                 {"GiB", 1073741824.0}});
    case Quantity::kSeconds:
      return number_text(v * 1e6) + "us";
    case Quantity::kBandwidth:
      return number_text(v / 1e9) + "GB/s";
    case Quantity::kFraction:
      return number_text(std::round(v * 1e4) / 1e4);
    default:
      return exact_text(quantity, v, choices);
  }
}

std::string_view quantity_name(Quantity quantity) {
  switch (quantity) {
    case Quantity::kDuration:
    case Quantity::kSeconds:
      return "duration";
    case Quantity::kFlops:
      return "FLOP rate";
    case Quantity::kWatts:
      return "power";
    case Quantity::kUsd:
      return "US dollars";
    case Quantity::kUsdPerHour:
      return "US dollars per hour";
    case Quantity::kBytes:
      return "bytes";
    case Quantity::kBandwidth:
      return "bandwidth";
    case Quantity::kFraction:
      return "fraction";
    case Quantity::kNumber:
      return "number";
    case Quantity::kCount:
      return "count";
    case Quantity::kPositiveInt:
      return "integer >= 1";
    case Quantity::kNonNegativeInt:
      return "integer >= 0";
    case Quantity::kBool:
      return "true/false";
    case Quantity::kChoice:
      return "choice";
  }
  return "";
}

}  // namespace fathom::params
