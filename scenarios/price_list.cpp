#include "scenarios/price_list.hpp"

#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

namespace {

std::vector<PriceEntry> parse_price_list() {
  const Document doc = Document::parse(price_list_text(), std::string(kPriceListFile));
  std::vector<PriceEntry> entries;
  read_catalog_entries(doc, [&](MapReader& fields, const std::string& name) {
    PriceEntry e;
    e.name = name;
    const bool node = find_catalog_node(name) != nullptr;
    if (!node && find_catalog_switch(name) == nullptr) {
      throw ScenarioError(fields.location(), fields.path(),
                          "an entry named after a node (nodes.yaml) or a switch (switches.yaml) of the catalog",
                          "\"" + name + "\"");
    }
    e.source = fields.required<std::string>("source", "a string naming where each figure comes from, and its date");
    e.usd = fields.usd("price", Sign::kPositive);
    if (node) e.watts = fields.watts("power", Sign::kPositive);
    entries.push_back(std::move(e));
  });
  return entries;
}

}  // namespace

const std::vector<PriceEntry>& price_list() {
  static const std::vector<PriceEntry> entries = parse_price_list();
  return entries;
}

const PriceEntry* find_price(std::string_view name) {
  for (const PriceEntry& e : price_list()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace fathom::scenario
