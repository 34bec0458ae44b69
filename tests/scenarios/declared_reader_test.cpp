// The declared parameters (models/params/parameter.hpp) as the loader reads them: every key of
// every declared spec reads back what a profile or the docs write for it, nested keys come from
// their mapping, and bounds are enforced at the value's line.
#include "scenarios/declared_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/collectives/collective_parameters.hpp"
#include "models/cost/cost_spec.hpp"
#include "models/hardware/accelerator_parameters.hpp"
#include "models/hardware/node_parameters.hpp"
#include "models/network/fabric_parameters.hpp"
#include "models/params/parameter_text.hpp"
#include "models/workloads/training/model_parameters.hpp"
#include "models/workloads/training/parallel_parameters.hpp"
#include "models/workloads/training/training_parameters.hpp"
#include "scenarios/errors.hpp"

namespace fathom::scenario {
namespace {

// `key: text` under `section:`, with a nested key written as its own mapping.
std::string yaml_for(std::string_view key, const std::string& text) {
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos) return "section:\n  " + std::string(key) + ": " + text + "\n";
  return "section:\n  " + std::string(key.substr(0, dot)) + ":\n    " + std::string(key.substr(dot + 1)) + ": " + text +
         "\n";
}

// A value other than the default that the parameter accepts, for the round trip.
double other_value(params::Quantity q, double current, double max, std::string_view choices) {
  switch (q) {
    case params::Quantity::kFraction:
      return std::min(max, current > 0.5 ? 0.25 : 0.75);
    case params::Quantity::kNumber:
      return current + 2.5;
    case params::Quantity::kBool:
      return current != 0 ? 0 : 1;
    case params::Quantity::kChoice:
      return current != 0 ? 0 : static_cast<double>(params::choice_words(choices).size() - 1);
    case params::Quantity::kSeconds:
      return current + 2e-6;
    case params::Quantity::kFlops:
      return current + 1e12;
    case params::Quantity::kWatts:
      return current + 100;
    case params::Quantity::kUsd:
    case params::Quantity::kUsdPerHour:
      return current + 12.5;
    case params::Quantity::kBandwidth:
      return current + 1e9;
    default:
      return std::min(max, current + 3 * 1024);
  }
}

template <class Spec>
void round_trip_every_parameter(const std::vector<params::Parameter<Spec>>& declared) {
  for (const auto& p : declared) {
    CAPTURE(p.key);
    const double value = other_value(p.quantity, p.default_value(), p.max, p.choices);
    for (const std::string& text :
         {params::exact_text(p.quantity, value, p.choices), params::readable_text(p.quantity, value, p.choices)}) {
      CAPTURE(text);
      const Document doc = Document::parse(yaml_for(p.key, text), "declared.yaml");
      MapReader section = doc.root().child("section");
      Spec spec{};
      read_declared(section, declared, spec);
      section.finish();
      if (p.quantity == params::Quantity::kBandwidth || p.quantity == params::Quantity::kSeconds ||
          p.quantity == params::Quantity::kFlops || p.quantity == params::Quantity::kWatts) {
        CHECK(p.get(spec) == doctest::Approx(value).epsilon(1e-6));
      } else {
        CHECK(p.get(spec) == value);
      }
    }
  }
}

TEST_CASE("every declared parameter reads back the text written for it, exact and readable") {
  round_trip_every_parameter(coll::collective_parameters());
  round_trip_every_parameter(hw::node_parameters());
  round_trip_every_parameter(net::fabric_parameters());
  round_trip_every_parameter(train::parallel_parameters());
  round_trip_every_parameter(train::model_parameters());
  round_trip_every_parameter(train::training_parameters());
  round_trip_every_parameter(hw::accelerator_parameters());
  round_trip_every_parameter(hw::efficiency_parameters());
  round_trip_every_parameter(hw::gemm_tiles_parameters());
  round_trip_every_parameter(hw::memory_kernel_parameters());
  round_trip_every_parameter(hw::switch_parameters());
  round_trip_every_parameter(cost::cost_parameters());
}

TEST_CASE("a section reads only the keys present and leaves the rest at the spec's values") {
  const Document doc = Document::parse("section:\n  alpha: 7us\n  efficiency: {nic: 0.5}\n", "declared.yaml");
  MapReader section = doc.root().child("section");
  coll::CollectiveParams p;
  p.launch_ns = 123;
  read_declared(section, coll::collective_parameters(), p);
  section.finish();
  CHECK(p.alpha_ns == 7000);
  CHECK(p.efficiency.nic == 0.5);
  CHECK(p.launch_ns == 123);
  CHECK(p.efficiency.ring == coll::AlgorithmEfficiency{}.ring);
}

TEST_CASE("declared bounds and quantities are enforced at the value, with the key path") {
  const auto error = [](const std::string& text) -> ScenarioError {
    const Document doc = Document::parse(text, "declared.yaml");
    MapReader section = doc.root().child("section");
    coll::CollectiveParams p;
    try {
      read_declared(section, coll::collective_parameters(), p);
      section.finish();
    } catch (const ScenarioError& e) {
      return e;
    }
    FAIL("accepted: " << text);
    return ScenarioError(Location{"", 0, 0}, "", "", "");
  };
  ScenarioError e = error("section:\n  flows_per_connection: 257\n");
  CHECK(e.key_path() == "section.flows_per_connection");
  CHECK(e.line() == 2);
  CHECK(std::string(e.what()).find("at most 256") != std::string::npos);
  e = error("section:\n  efficiency:\n    nvls: 0\n");
  CHECK(e.key_path() == "section.efficiency.nvls");
  CHECK(e.line() == 3);
  e = error("section:\n  nvls_chunk: 0B\n");
  CHECK(e.key_path() == "section.nvls_chunk");
  e = error("section:\n  alpha: 5\n");  // a duration needs its unit
  CHECK(e.key_path() == "section.alpha");
  e = error("section:\n  protocol: LL129\n");
  CHECK(e.hint().find("LL128") != std::string::npos);
  e = error("section:\n  efficiency: {rnig: 0.8}\n");
  CHECK(e.key_path() == "section.efficiency.rnig");
  CHECK(e.hint().find("ring") != std::string::npos);
}

TEST_CASE("readable and exact texts name their units") {
  CHECK(params::readable_text(params::Quantity::kDuration, 5000) == "5us");
  CHECK(params::readable_text(params::Quantity::kDuration, 1500) == "1500ns");
  CHECK(params::readable_text(params::Quantity::kBytes, 160e6) == "160MB");
  CHECK(params::readable_text(params::Quantity::kBytes, 4194304) == "4MiB");
  CHECK(params::readable_text(params::Quantity::kBandwidth, 50e9) == "50GB/s");
  CHECK(params::exact_text(params::Quantity::kDuration, 5000) == "5000ns");
  CHECK(params::exact_text(params::Quantity::kChoice, 2, "auto Simple LL128 LL") == "LL128");
}

}  // namespace
}  // namespace fathom::scenario
