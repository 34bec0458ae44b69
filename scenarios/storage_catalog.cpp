#include "scenarios/storage_catalog.hpp"

#include <string>

#include "scenarios/run_reader.hpp"

namespace fathom::scenario {

namespace {

std::vector<storage::TierSpec> parse_tiers() {
  const Document doc = Document::parse(storage_catalog_text(), std::string(kStorageCatalogFile));
  MapReader root = doc.root();
  std::vector<storage::TierSpec> tiers = read_storage_section(
      root, [](const ValueReader&) {}, nullptr, true);
  return tiers;
}

}  // namespace

const std::vector<storage::TierSpec>& catalog_tiers() {
  static const std::vector<storage::TierSpec> tiers = parse_tiers();
  return tiers;
}

const storage::TierSpec& catalog_tier(const ValueReader& value) {
  const std::string name = value.as<std::string>("a storage tier of the catalog");
  std::vector<std::string_view> names;
  for (const auto& t : catalog_tiers()) names.push_back(t.name);
  value.one_of(names);
  for (const auto& t : catalog_tiers()) {
    if (t.name == name) return t;
  }
  value.fail("a storage tier of the catalog");
}

}  // namespace fathom::scenario
