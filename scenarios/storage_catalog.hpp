// The built-in storage tiers (scenarios/hardware/storage.yaml): published systems, each a tier as
// a scenario writes it under `storage:`, with its sources. A scenario's tier starts from one with
// `entry: NAME` (docs/run.md); a user catalog folder's storage.yaml adds more
// (scenarios/user_catalogs.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/storage/storage_tier.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

inline constexpr std::string_view kStorageCatalogFile = "<built-in>/scenarios/hardware/storage.yaml";

// The catalog file's text, compiled in (scenarios/CMakeLists.txt).
std::string_view storage_catalog_text();

// Every entry, in the file's order, read once.
const std::vector<storage::TierSpec>& catalog_tiers();

// The entry `value` names, in the active user catalogs (their storage.yaml) first, then the
// built-in one; an error listing the names otherwise.
const storage::TierSpec& catalog_tier(const ValueReader& value);
// The entry `name` the same way; nullptr if none has it.
const storage::TierSpec* find_catalog_tier(std::string_view name);
// The built-in entries' names, then the user catalogs' new ones.
std::vector<std::string> catalog_tier_names();

}  // namespace fathom::scenario
