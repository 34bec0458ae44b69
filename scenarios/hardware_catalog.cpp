#include "scenarios/hardware_catalog.hpp"

#include <utility>

#include "scenarios/accelerator_catalog.hpp"

namespace fathom::scenario {

namespace {

std::vector<CatalogNode> parse_catalog() {
  const Document doc = Document::parse(hardware_catalog_text(), std::string(kHardwareCatalogFile));
  MapReader root = doc.root();
  std::vector<CatalogNode> nodes;
  for (const auto& item : doc.tree()) {
    CatalogNode entry;
    entry.name = item.first.Scalar();
    MapReader fields = root.child(entry.name);
    entry.source = fields.required<std::string>("source", "a string naming the public documents the figures come from");
    // Checked against the accelerator catalog here, so that a misspelt name fails at its line.
    entry.accelerator = catalog_accelerator(fields.value("accelerator", "an accelerator of the hardware catalog")).name;
    entry.node = read_node_fields(fields, topo::NodeSpec{});
    fields.finish();
    nodes.push_back(std::move(entry));
  }
  root.finish();
  return nodes;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const std::vector<CatalogNode>& catalog_nodes() {
  static const std::vector<CatalogNode> nodes = parse_catalog();
  return nodes;
}

const CatalogNode* find_catalog_node(std::string_view name) {
  for (const auto& n : catalog_nodes()) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> catalog_node_names() {
  std::vector<std::string> names;
  for (const auto& n : catalog_nodes()) names.push_back(n.name);
  return names;
}

const CatalogNode& catalog_node(const ValueReader& value) {
  const std::vector<std::string> names = catalog_node_names();
  const std::string expected = "a node of the hardware catalog (" + joined(names) + ")";
  const auto name = value.as<std::string>(expected);
  if (const CatalogNode* n = find_catalog_node(name)) return *n;
  value.fail(expected, did_you_mean(name, names));
}

topo::NodeSpec read_node_fields(MapReader& node, topo::NodeSpec n) {
  n.gpus = node.non_negative_int("gpus", n.gpus);
  n.nics = node.non_negative_int("nics", n.nics);
  n.nvlink_bytes_per_s = node.bandwidth("nvlink_bandwidth", n.nvlink_bytes_per_s);
  n.nvlink_latency_ns = node.duration("nvlink_latency", sim::SimTime::from_ns(n.nvlink_latency_ns)).ns();
  n.nvswitches = node.non_negative_int("nvswitches", n.nvswitches);
  n.nvls = node.optional<bool>("nvls", n.nvls);
  n.nvlink_domain_nodes = node.positive_int("nvlink_domain_nodes", n.nvlink_domain_nodes);
  n.pcie_bytes_per_s = node.bandwidth("pcie_bandwidth", n.pcie_bytes_per_s);
  n.pcie_latency_ns = node.duration("pcie_latency", sim::SimTime::from_ns(n.pcie_latency_ns)).ns();
  n.nic_bytes_per_s = node.bandwidth("nic_bandwidth", n.nic_bytes_per_s);
  n.local_nvme_bytes = static_cast<double>(node.bytes("local_nvme", static_cast<std::int64_t>(n.local_nvme_bytes)));
  return n;
}

}  // namespace fathom::scenario
