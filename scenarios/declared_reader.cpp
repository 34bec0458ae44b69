#include "scenarios/declared_reader.hpp"

#include <cmath>
#include <cstdio>

#include "models/params/parameter_text.hpp"

namespace fathom::scenario {

double read_parameter_value(const ValueReader& v, params::Quantity quantity, bool positive, double max,
                            std::string_view doc, std::string_view choices, bool negative_ok) {
  const Sign sign = positive ? Sign::kPositive : Sign::kNonNegative;
  const std::string why = " (" + std::string(doc) + ")";
  double x = 0;
  switch (quantity) {
    case params::Quantity::kDuration:
      x = static_cast<double>(v.duration(sign).ns());
      break;
    case params::Quantity::kSeconds:
      x = v.duration(sign).to_seconds();
      break;
    case params::Quantity::kFlops:
      x = v.flops(sign);
      break;
    case params::Quantity::kWatts:
      x = v.watts(sign);
      break;
    case params::Quantity::kUsd:
      x = v.usd(sign);
      break;
    case params::Quantity::kUsdPerHour:
      x = v.usd_per_hour(sign);
      break;
    case params::Quantity::kBytes:
      x = static_cast<double>(v.bytes(sign));
      break;
    case params::Quantity::kBandwidth:
      x = v.bandwidth(sign);
      break;
    case params::Quantity::kFraction:
      x = v.fraction();
      if (positive && !(x > 0)) v.fail("a fraction above 0 and at most 1" + why);
      break;
    case params::Quantity::kNumber:
      x = v.as<double>(positive ? "a number above 0" + why : "a number" + why);
      if (positive && !(x > 0)) v.fail("a number above 0" + why);
      if (!negative_ok && x < 0) v.fail("a number of 0 or more" + why);
      break;
    case params::Quantity::kCount:
      x = static_cast<double>(v.count(sign));
      break;
    case params::Quantity::kPositiveInt:
      x = v.positive_int();
      break;
    case params::Quantity::kNonNegativeInt:
      x = v.non_negative_int();
      break;
    case params::Quantity::kBool:
      x = v.as<bool>("true or false" + why) ? 1 : 0;
      break;
    case params::Quantity::kChoice: {
      const std::vector<std::string_view> words = params::choice_words(choices);
      const std::string word = v.one_of(words);
      for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == word) x = static_cast<double>(i);
      }
      break;
    }
  }
  if (x > max) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.15g", max);
    v.fail("at most " + std::string(bound) + why);
  }
  return x;
}

std::string expected_parameter(params::Quantity quantity, bool positive, std::string_view doc,
                               std::string_view choices) {
  const Sign sign = positive ? Sign::kPositive : Sign::kNonNegative;
  switch (quantity) {
    case params::Quantity::kDuration:
    case params::Quantity::kSeconds:
      return expected_quantity(Quantity::kDuration, sign);
    case params::Quantity::kBytes:
      return expected_quantity(Quantity::kBytes, sign);
    case params::Quantity::kBandwidth:
      return expected_quantity(Quantity::kBandwidth, sign);
    case params::Quantity::kFlops:
      return expected_quantity(Quantity::kFlopRate, sign);
    case params::Quantity::kCount:
      return expected_quantity(Quantity::kCount, sign);
    case params::Quantity::kWatts:
      return expected_quantity(Quantity::kPower, sign);
    case params::Quantity::kUsd:
      return expected_quantity(Quantity::kUsd, sign);
    case params::Quantity::kUsdPerHour:
      return expected_quantity(Quantity::kUsdPerHour, sign);
    case params::Quantity::kFraction:
      return positive ? "a fraction above 0 and at most 1, such as 0.8 or 80%" : "a fraction such as 0.8 or 80%";
    case params::Quantity::kChoice: {
      std::string words;
      for (auto w : params::choice_words(choices)) words += (words.empty() ? "\"" : ", \"") + std::string(w) + "\"";
      return "one of " + words;
    }
    case params::Quantity::kPositiveInt:
      return "a positive integer (" + std::string(doc) + ")";
    case params::Quantity::kNonNegativeInt:
      return "a whole number of 0 or more (" + std::string(doc) + ")";
    case params::Quantity::kBool:
      return "true or false (" + std::string(doc) + ")";
    default:
      return std::string(params::quantity_name(quantity)) + " (" + std::string(doc) + ")";
  }
}

}  // namespace fathom::scenario
