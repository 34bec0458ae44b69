// The accelerator and switch catalogs: named accelerators (h100-sxm, mi300x, ...) with their
// public peaks, memory, power and default efficiencies, and named scale-out switches
// (quantum-2-qm9700, ...). The catalogs are scenarios/hardware/accelerators.yaml and
// switches.yaml, compiled into the binary at build time and parsed as strictly as a scenario:
// every key is required in a catalog entry and any other key is an error.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// The names the catalogs' locations carry in errors.
inline constexpr std::string_view kAcceleratorCatalogFile = "<built-in>/scenarios/hardware/accelerators.yaml";
inline constexpr std::string_view kSwitchCatalogFile = "<built-in>/scenarios/hardware/switches.yaml";

// scenarios/hardware/accelerators.yaml and switches.yaml as compiled in.
std::string_view accelerator_catalog_text();
std::string_view switch_catalog_text();

// ---- Accelerators -------------------------------------------------------------------------

// Every entry of the catalog, in file order; parsed once. A malformed catalog throws
// ScenarioError located in kAcceleratorCatalogFile.
const std::vector<hw::AcceleratorSpec>& catalog_accelerators();

// The entry named `name`, or nullptr.
const hw::AcceleratorSpec* find_catalog_accelerator(std::string_view name);

// The catalog's names, in file order.
std::vector<std::string> catalog_accelerator_names();

// The entry `value` names; an unknown name is rejected at `value` with the catalog's names
// and a "did you mean".
const hw::AcceleratorSpec& catalog_accelerator(const ValueReader& value);

// The keys an accelerator mapping holds besides `base` and, in the catalog only, `source` and
// `efficiency_source`; and the keys of its `efficiency` mapping.
inline constexpr std::string_view kAcceleratorKeys[] = {"peak_fp32",     "peak_tf32",       "peak_bf16",     "peak_fp8",
                                                        "hbm",           "runtime_reserve", "hbm_bandwidth", "tdp",
                                                        "compute_units", "efficiency"};
inline constexpr std::string_view kEfficiencyKeys[] = {
    "gemm_max", "kernel_overhead", "gemm_curve", "gemm_tiles", "attention", "hbm", "nvlink", "nic"};

// Reads the accelerator keys present in `map` over `base`; keys absent keep base's value. The
// `efficiency` mapping is read the same way and finished (an unknown key in it is an error);
// an efficiency of 0 is rejected. `gemm_curve` and `gemm_tiles`, when given, replace the whole
// curve or tile model (`none` removes it). Does not call map.finish(): the caller reads its own extra
// keys (`base`) first. `name`, `source` and `efficiency_source` are base's.
hw::AcceleratorSpec read_accelerator_fields(MapReader& map, hw::AcceleratorSpec base);

// One catalog entry named `name`, as the built-in file and user catalogs write it: in full
// (every key, `source` and `efficiency_source`), or `base: NAME` (any catalog accelerator) and
// only the keys it changes, `source` and `efficiency_source` then defaulting to the base's.
// Does not call fields.finish().
hw::AcceleratorSpec read_accelerator_entry(MapReader& fields, const std::string& name);

// Calls `read` with each top-level entry of a catalog document (its fields and its name), then
// finishes the entry's mapping and the document's.
void read_catalog_entries(const Document& doc, const std::function<void(MapReader&, const std::string&)>& read);

// ---- Switches -----------------------------------------------------------------------------

const std::vector<hw::SwitchSpec>& catalog_switches();
const hw::SwitchSpec* find_catalog_switch(std::string_view name);
std::vector<std::string> catalog_switch_names();
const hw::SwitchSpec& catalog_switch(const ValueReader& value);

// The keys a switch mapping holds (besides `base` and, in the catalog, `source`).
inline constexpr std::string_view kSwitchKeys[] = {"radix", "port_bandwidth", "latency", "power"};

// Reads the switch keys present in `map` over `base`, as read_accelerator_fields does.
hw::SwitchSpec read_switch_fields(MapReader& map, hw::SwitchSpec base);

// One switch entry, in full or over `base:`, as read_accelerator_entry.
hw::SwitchSpec read_switch_entry(MapReader& fields, const std::string& name);

}  // namespace fathom::scenario
