#include "scenarios/hardware_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "models/hardware/node_parameters.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::scenario {

namespace {

std::vector<CatalogNode> parse_catalog() {
  const Document doc = Document::parse(hardware_catalog_text(), std::string(kHardwareCatalogFile));
  std::vector<CatalogNode> nodes;
  read_catalog_entries(
      doc, [&](MapReader& fields, const std::string& name) { nodes.push_back(read_node_entry(fields, name)); });
  return nodes;
}

}  // namespace

const std::vector<CatalogNode>& catalog_nodes() {
  static const std::vector<CatalogNode> nodes = parse_catalog();
  return nodes;
}

const CatalogNode* find_catalog_node(std::string_view name) {
  return find_in_catalogs(catalog_nodes(), &UserCatalog::nodes, name);
}

std::vector<std::string> catalog_node_names() { return names_in_catalogs(catalog_nodes(), &UserCatalog::nodes); }

const CatalogNode& catalog_node(const ValueReader& value) {
  return named_in_catalogs(catalog_nodes(), &UserCatalog::nodes, value, "a node of the hardware catalog");
}

CatalogNode read_node_entry(MapReader& fields, const std::string& name) {
  CatalogNode entry;
  if (auto b = fields.find("base")) {
    entry = catalog_node(*b);
    entry.source = fields.optional<std::string>("source", entry.source);
    if (auto a = fields.find("accelerator")) entry.accelerator = catalog_accelerator(*a).name;
  } else {
    entry.source = fields.required<std::string>("source", "a string naming the public documents the figures come from");
    // Checked against the accelerator catalog here, so that a misspelt name fails at its line.
    entry.accelerator = catalog_accelerator(fields.value("accelerator", "an accelerator of the hardware catalog")).name;
  }
  entry.measured_as.clear();
  const ListReader measured_as = fields.optional_list("measured_as");
  for (std::size_t i = 0; i < measured_as.size(); ++i) {
    std::string token = measured_as.at(i).as<std::string>("a lower-case name such as h100");
    if (token.empty() || std::any_of(token.begin(), token.end(), [](unsigned char c) { return std::isupper(c); })) {
      measured_as.at(i).fail("a lower-case name such as h100");
    }
    entry.measured_as.push_back(std::move(token));
  }
  entry.node = read_node_fields(fields, entry.node);
  entry.name = name;
  return entry;
}

topo::NodeSpec read_node_fields(MapReader& node, topo::NodeSpec n) {
  read_declared(node, hw::node_parameters(), n);
  return n;
}

}  // namespace fathom::scenario
