#include "scenarios/storage_catalog.hpp"

#include <string>

#include "scenarios/run_reader.hpp"
#include "scenarios/user_catalogs.hpp"

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
  return named_in_catalogs(catalog_tiers(), &UserCatalog::storage, value, "a storage tier of the catalog");
}

const storage::TierSpec* find_catalog_tier(std::string_view name) {
  return find_in_catalogs(catalog_tiers(), &UserCatalog::storage, name);
}

std::vector<std::string> catalog_tier_names() { return names_in_catalogs(catalog_tiers(), &UserCatalog::storage); }

}  // namespace fathom::scenario
