// The scenario loader's own helpers, shared by the files that read one kind of scenario
// (scenario.cpp reads GPU clusters, wafer_scenario.cpp wafer-scale ones). Not for other layers.
#pragma once

#include <string>
#include <string_view>

#include "models/workloads/training/transformer.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/yaml_reader.hpp"
#include "sim/errors.hpp"

namespace fathom::scenario::detail {

// Remembers where a value (or mapping) sits, under its key path (Scenario::locations, written).
void note(Scenario& s, const ValueReader& v);
void note(Scenario& s, const MapReader& m);

// Records which catalog file the entry `name` of `kind` came from (Scenario::catalog_entries).
void used(Scenario& s, std::string_view kind, const std::string& name);

// A violation of the spec at `key` (a scenario key path), located at that key or the nearest
// written one above it: a ScenarioError.
[[noreturn]] void reject(const Scenario& s, const sim::SpecViolation& v, const std::string& key);

// `model:` under `w`: a zoo name, or a mapping over a zoo entry (`base`) or over nothing.
train::TransformerSpec read_model(Scenario& s, MapReader& w);

// `plan:`, checked against what its constraints and objective need (a training workload's, on
// GPUs or wafers, or an inference service's).
void read_plan(Scenario& s, MapReader p);

// `expect:` (every key of kExpectKeys; the caller checks which apply) and `output:`.
void read_expect(Scenario& s, MapReader e);
void read_output(Scenario& s, MapReader o);

// Everything after `seed` of a scenario whose `cluster.kind` is wafer-scale (wafer_scenario.cpp).
void read_wafer_scenario(Scenario& s, MapReader& root, MapReader& cluster);

}  // namespace fathom::scenario::detail
