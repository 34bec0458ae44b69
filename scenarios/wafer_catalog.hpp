// The built-in catalog of wafer-scale parts (scenarios/hardware/wafer.yaml): systems, MemoryX
// appliances, SwarmX fabrics and input workers, each with its sources. A scenario names an entry or starts from
// one (`base:`) and overrides keys (docs/wafer.md).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/hardware/wafer_system.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

inline constexpr std::string_view kWaferCatalogFile = "<built-in>/scenarios/hardware/wafer.yaml";

// The catalog file's text, compiled in (scenarios/CMakeLists.txt).
std::string_view wafer_catalog_text();

struct WaferCatalog {
  std::vector<hw::WaferSystemSpec> systems;
  std::vector<hw::MemoryXSpec> memoryx;
  std::vector<hw::SwarmXSpec> swarmx;
  std::vector<hw::InputWorkerSpec> input_workers;
};

// Every entry, in the file's order, read once.
const WaferCatalog& wafer_catalog();

// `value`: an entry's name, or a mapping of an entry to start from (`base`) and the keys it
// changes (without `base`, every key the model needs). A ScenarioError at the value otherwise,
// listing the entries. `note` is called with every value read.
using NoteValue = std::function<void(const ValueReader&)>;
hw::WaferSystemSpec read_wafer_system(const ValueReader& value, const NoteValue& note);
hw::MemoryXSpec read_memoryx(const ValueReader& value, const NoteValue& note);
hw::SwarmXSpec read_swarmx(const ValueReader& value, const NoteValue& note);
hw::InputWorkerSpec read_input_worker(const ValueReader& value, const NoteValue& note);

}  // namespace fathom::scenario
