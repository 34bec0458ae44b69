#include "scenarios/distribution_reader.hpp"

#include <string>

namespace fathom::scenario {

jobs::Distribution read_distribution(MapReader& parent, std::string_view key, std::string_view expected,
                                     const std::function<void(const ValueReader&)>& note) {
  const bool duration = expected == kDurationDistribution;
  using Kind = jobs::Distribution::Kind;
  jobs::Distribution d;
  const ValueReader v = parent.value(key, std::string(expected));
  note(v);
  const auto number = [&](const ValueReader& x) {
    return duration ? x.duration().to_seconds() : x.as<double>("a positive number");
  };
  if (!v.is_map()) {
    d.a = number(v);
  } else {
    MapReader m = v.map();
    const bool empirical = m.has("values");
    const std::string kind =
        m.one_of("distribution", {"fixed", "exponential", "uniform", "log-uniform", "lognormal", "gamma", "empirical"},
                 empirical ? "empirical" : "fixed");
    const auto field = [&](std::string_view name) {
      const ValueReader x = m.value(name, duration ? "a duration" : "a positive number");
      note(x);
      return number(x);
    };
    if (kind == "fixed") {
      d.a = field("value");
    } else if (kind == "exponential") {
      d.kind = Kind::kExponential;
      d.a = field("mean");
    } else if (kind == "uniform" || kind == "log-uniform") {
      d.kind = kind == "uniform" ? Kind::kUniform : Kind::kLogUniform;
      d.a = field("min");
      d.b = field("max");
    } else if (kind == "lognormal") {
      d.kind = Kind::kLogNormal;
      d.a = field("median");
      d.b = m.required<double>("sigma", "the standard deviation of the log, a number >= 0");
    } else if (kind == "gamma") {
      d.kind = Kind::kGamma;
      d.a = field("mean");
      d.b = m.required<double>("cv", "the coefficient of variation, a positive number (1: exponential)");
    } else {
      d.kind = Kind::kEmpirical;
      const ListReader values = m.list("values");
      for (std::size_t i = 0; i < values.size(); ++i) d.values.push_back(number(values.at(i)));
      if (m.has("weights")) {
        const ListReader weights = m.list("weights");
        for (std::size_t i = 0; i < weights.size(); ++i) d.weights.push_back(weights.at(i).as<double>("a weight"));
      } else {
        d.weights.assign(d.values.size(), 1.0);
      }
    }
    if (const std::string why = d.invalid(); !why.empty()) v.fail(why);
    m.finish();
    return d;
  }
  if (const std::string why = d.invalid(); !why.empty()) v.fail(why);
  return d;
}

}  // namespace fathom::scenario
