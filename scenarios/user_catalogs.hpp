// User catalogs: folders of accelerators, switches, nodes, models and storage tiers that a user
// adds at run time (`--catalog DIR`, a scenario's `catalogs:` key) beside the built-in catalog, in
// the built-in schema. Each folder may hold accelerators.yaml, switches.yaml, nodes.yaml,
// models.yaml and storage.yaml (read in that order). An entry is written in full, as a built-in
// one is, or extends an entry with `base: NAME` (a storage tier: `entry: NAME`; a built-in one,
// one of an earlier folder, or an earlier one of its own folder), giving only the keys it
// changes; an entry named as an existing one replaces it.
//
// While a ScopedCatalogs lives, every catalog lookup on its thread (catalog_accelerator,
// find_catalog_node, catalog_model_names, ...) searches its folders first, the last added
// first, then the built-in catalog. The loaded scenario keeps copies of what it looked up, so
// nothing refers to a folder's entries once the scope ends.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/training/transformer.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// The files a catalog folder may hold, in the order they are read.
inline constexpr std::string_view kCatalogFiles[] = {"accelerators.yaml", "switches.yaml", "nodes.yaml", "models.yaml",
                                                     "storage.yaml"};

struct UserCatalog {
  std::string folder;
  std::vector<hw::AcceleratorSpec> accelerators;
  std::vector<hw::SwitchSpec> switches;
  std::vector<CatalogNode> nodes;
  std::vector<train::TransformerSpec> models;
  std::vector<storage::TierSpec> storage;
  // The file that defines each entry, by "kind:name" (kind: accelerator, switch, node, model, storage).
  std::map<std::string, std::string> files;
};

// The user catalogs active on this thread, the first added first.
const std::vector<UserCatalog>& active_user_catalogs();

class ScopedCatalogs {
 public:
  // Reads `folders` in order, each seeing the built-in catalog and the folders before it, and
  // activates them on this thread until destroyed. A folder that does not exist, a `.yaml` file
  // that is not one of kCatalogFiles and a bad entry are ScenarioErrors (a folder's at `where`
  // when given, an entry's at its file:line).
  explicit ScopedCatalogs(const std::vector<std::string>& folders, const Location* where = nullptr);
  // Activates catalogs read already (another thread's active_user_catalogs(), copied), so that a
  // worker thread loads scenarios as the thread that read them would.
  explicit ScopedCatalogs(const std::vector<UserCatalog>& catalogs);
  ~ScopedCatalogs();
  ScopedCatalogs(const ScopedCatalogs&) = delete;
  ScopedCatalogs& operator=(const ScopedCatalogs&) = delete;

 private:
  std::size_t pushed_ = 0;
};

// The entry `name` of the active user catalogs (the last added first; `member` picks the kind),
// else of the built-in `entries`; nullptr if none has it.
template <class T>
const T* find_in_catalogs(const std::vector<T>& entries, std::vector<T> UserCatalog::*member, std::string_view name) {
  const auto& users = active_user_catalogs();
  for (auto it = users.rbegin(); it != users.rend(); ++it) {
    for (const T& e : (*it).*member) {
      if (e.name == name) return &e;
    }
  }
  for (const T& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// The built-in entries' names, then each active user catalog's new ones.
template <class T>
std::vector<std::string> names_in_catalogs(const std::vector<T>& entries, std::vector<T> UserCatalog::*member) {
  std::vector<std::string> names;
  for (const T& e : entries) names.push_back(e.name);
  for (const auto& user : active_user_catalogs()) {
    for (const T& e : user.*member) {
      if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
    }
  }
  return names;
}

// The entry `value` names, or a ScenarioError at `value`: expected `what` and the list of names,
// with a "did you mean".
template <class T>
const T& named_in_catalogs(const std::vector<T>& entries, std::vector<T> UserCatalog::*member, const ValueReader& value,
                           std::string_view what) {
  const std::vector<std::string> names = names_in_catalogs(entries, member);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string expected = std::string(what) + " (" + list + ")";
  const auto name = value.as<std::string>(expected);
  if (const T* e = find_in_catalogs(entries, member, name)) return *e;
  value.fail(expected, did_you_mean(name, names));
}

// The file the entry `name` of `kind` ("accelerator", "switch", "node", "model" or "storage") comes from:
// the user catalog file that defines it where one does, else the built-in catalog's file.
// Empty if there is no such entry.
std::string catalog_origin(std::string_view kind, std::string_view name);

}  // namespace fathom::scenario
