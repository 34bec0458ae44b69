// Reads a spec's declared parameters (models/params/parameter.hpp) from its YAML section: each
// key present is parsed as its quantity, checked against its bounds and set on the spec; keys
// with a dot ("efficiency.ring") are read from the nested mapping. Errors are located at the
// value, as every reader's.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// The value `v` as the parameter's quantity, in SI units (nanoseconds for durations; a choice's
// index), or a ScenarioError at `v`. A plain number is 0 or more unless `negative_ok` (a parameter
// whose default is a negative sentinel, such as failures.spares' -1).
double read_parameter_value(const ValueReader& v, params::Quantity quantity, bool positive, double max,
                            std::string_view doc, std::string_view choices, bool negative_ok = false);

// Declares the section's keys (and the nested sections' keys) for "did you mean" hints.
template <class Spec>
void declare_parameters(MapReader& section, const std::vector<params::Parameter<Spec>>& declared) {
  for (const auto& p : declared) {
    const std::string key(p.key.substr(0, p.key.find('.')));
    section.declare({key});
  }
}

// What a missing required key of `quantity` should have held ("a FLOP rate such as ...").
std::string expected_parameter(params::Quantity quantity, bool positive, std::string_view doc,
                               std::string_view choices = {});

// Reads every declared key present in `section` over `spec`; with `required` (a catalog entry,
// which must give every published figure) a missing key is an error. Nested sections are
// finished here (an unknown key in them is an error); `section` itself is left for the caller
// to finish. `note`, when set, is called with every value read.
template <class Spec>
void read_declared(MapReader& section, const std::vector<params::Parameter<Spec>>& declared, Spec& spec,
                   const std::function<void(const ValueReader&)>& note = {}, bool required = false) {
  declare_parameters(section, declared);
  // A nested section is required only where one of its keys is (a section of optional keys,
  // such as a training workload's `stragglers`, may be left out).
  std::map<std::string, bool> nested_required;
  for (const auto& p : declared) {
    const std::size_t dot = p.key.find('.');
    if (dot != std::string_view::npos) {
      nested_required[std::string(p.key.substr(0, dot))] |= required && !p.optional_in_entry;
    }
  }
  std::map<std::string, MapReader> nested;
  for (const auto& p : declared) {
    const std::size_t dot = p.key.find('.');
    if (dot == std::string_view::npos) continue;
    const std::string parent(p.key.substr(0, dot));
    auto it = nested.find(parent);
    if (it == nested.end()) {
      it = nested.emplace(parent, nested_required[parent] ? section.child(parent) : section.optional_child(parent))
               .first;
    }
    it->second.declare({p.key.substr(dot + 1)});
  }
  for (const auto& p : declared) {
    const std::size_t dot = p.key.find('.');
    MapReader& in = dot == std::string_view::npos ? section : nested.at(std::string(p.key.substr(0, dot)));
    const std::string_view key = dot == std::string_view::npos ? p.key : p.key.substr(dot + 1);
    const auto v = required && !p.optional_in_entry
                       ? std::optional(in.value(key, expected_parameter(p.quantity, p.positive, p.doc, p.choices)))
                       : in.find(key);
    if (!v) continue;
    if (note) note(*v);
    p.set(spec, read_parameter_value(*v, p.quantity, p.positive, p.max, p.doc, p.choices, p.default_value() < 0));
  }
  for (auto& [name, reader] : nested) reader.finish();
}

}  // namespace fathom::scenario
