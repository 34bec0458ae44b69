#include "scenarios/user_catalogs.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/model_catalog.hpp"
#include "scenarios/run_reader.hpp"
#include "scenarios/storage_catalog.hpp"

namespace fathom::scenario {

namespace {

// Per thread, so that scenarios loaded on different threads with different folders never see
// each other's entries.
thread_local std::vector<UserCatalog> active;

std::string list_of_files() {
  std::string out;
  for (auto f : kCatalogFiles) out += (out.empty() ? "" : ", ") + std::string(f);
  return out;
}

// Reads `file` (one of kCatalogFiles) into the catalog at the back of `active`, entry by entry,
// so that an entry can extend an earlier one of the same folder.
void read_file(const std::filesystem::path& path, std::string_view kind_file) {
  const std::string file = path.string();
  const Document doc = Document::load_file(file);
  read_catalog_entries(doc, [&](MapReader& fields, const std::string& name) {
    UserCatalog& c = active.back();
    std::string kind;
    if (kind_file == "accelerators.yaml") {
      kind = "accelerator";
      c.accelerators.push_back(read_accelerator_entry(fields, name));
    } else if (kind_file == "switches.yaml") {
      kind = "switch";
      c.switches.push_back(read_switch_entry(fields, name));
    } else if (kind_file == "nodes.yaml") {
      kind = "node";
      c.nodes.push_back(read_node_entry(fields, name));
    } else if (kind_file == "models.yaml") {
      kind = "model";
      c.models.push_back(read_model_entry(fields, name));
    } else {
      kind = "storage";
      c.storage.push_back(read_storage_entry(fields, name));
    }
    // An entry named twice in one folder would shadow itself; the file says it once.
    active.back().files[kind + ":" + name] = file;
  });
}

}  // namespace

const std::vector<UserCatalog>& active_user_catalogs() { return active; }

ScopedCatalogs::ScopedCatalogs(const std::vector<std::string>& folders, const Location* where) {
  try {
    for (const std::string& folder : folders) {
      const std::filesystem::path dir(folder);
      const auto fail = [&](const std::string& expected, const std::string& found) {
        throw ScenarioError(where != nullptr ? *where : Location{folder, 0, 0}, "catalogs", expected, found);
      };
      if (!std::filesystem::is_directory(dir)) {
        fail("a catalog folder holding " + list_of_files(), "\"" + folder + "\", which is not a folder");
      }
      std::set<std::string> present;
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".yaml") continue;
        const std::string name = e.path().filename().string();
        if (std::find(std::begin(kCatalogFiles), std::end(kCatalogFiles), name) == std::end(kCatalogFiles)) {
          fail("catalog files named " + list_of_files(), "\"" + (dir / name).string() + "\"");
        }
        present.insert(name);
      }
      active.push_back(UserCatalog{folder, {}, {}, {}, {}, {}, {}});
      ++pushed_;
      for (auto f : kCatalogFiles) {
        if (present.count(std::string(f)) > 0) read_file(dir / f, f);
      }
    }
  } catch (...) {
    for (; pushed_ > 0; --pushed_) active.pop_back();
    throw;
  }
}

ScopedCatalogs::ScopedCatalogs(const std::vector<UserCatalog>& catalogs) {
  for (const UserCatalog& c : catalogs) {
    active.push_back(c);
    ++pushed_;
  }
}

ScopedCatalogs::~ScopedCatalogs() {
  for (; pushed_ > 0; --pushed_) active.pop_back();
}

std::string catalog_origin(std::string_view kind, std::string_view name) {
  const std::string key = std::string(kind) + ":" + std::string(name);
  for (auto it = active.rbegin(); it != active.rend(); ++it) {
    if (auto f = it->files.find(key); f != it->files.end()) return f->second;
  }
  if (kind == "accelerator" && find_catalog_accelerator(name) != nullptr) return std::string(kAcceleratorCatalogFile);
  if (kind == "switch" && find_catalog_switch(name) != nullptr) return std::string(kSwitchCatalogFile);
  if (kind == "node" && find_catalog_node(name) != nullptr) return std::string(kHardwareCatalogFile);
  if (kind == "model" && find_catalog_model(name) != nullptr) return std::string(kModelCatalogFile);
  if (kind == "storage" && find_catalog_tier(name) != nullptr) return std::string(kStorageCatalogFile);
  return {};
}

}  // namespace fathom::scenario
