// The hardware catalog: named node types (dgx-a100, dgx-h100, ...) that a scenario's
// `cluster.node` names instead of spelling every field out. The catalog is
// scenarios/hardware/nodes.yaml, compiled into the binary at build time, so that fathom reads
// it from any directory; it is parsed as strictly as a scenario (unknown keys are errors).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/yaml_reader.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::scenario {

// The name the catalog's locations carry in errors.
inline constexpr std::string_view kHardwareCatalogFile = "<built-in>/scenarios/hardware/nodes.yaml";

struct CatalogNode {
  std::string name;         // "dgx-h100"
  std::string source;       // the public documents its figures come from
  std::string accelerator;  // its GPU's entry in the accelerator catalog ("h100-sxm")
  // `measured_as`: the names measurement files use for this system ("h100" in a folder name or
  // a device name); `fathom calibrate` without --node picks the node they name. Not inherited
  // through `base:`: a variant is not the reference node of its GPU.
  std::vector<std::string> measured_as;
  topo::NodeSpec node;
};

// scenarios/hardware/nodes.yaml as compiled in.
std::string_view hardware_catalog_text();

// Every entry of the catalog, in file order; parsed once. A malformed catalog throws
// ScenarioError located in kHardwareCatalogFile.
const std::vector<CatalogNode>& catalog_nodes();

// The entry named `name`, or nullptr.
const CatalogNode* find_catalog_node(std::string_view name);

// The catalog's names, in file order.
std::vector<std::string> catalog_node_names();

// The entry `value` names; an unknown name is rejected at `value` with the catalog's names
// and a "did you mean".
const CatalogNode& catalog_node(const ValueReader& value);

// Reads the node keys present in `node` (hw::node_parameters(): every key a node mapping holds
// besides `base` and, in the catalog, `source`, `accelerator` and `measured_as`) over `base`;
// keys absent keep base's value. Does not call finish(): the caller reads its own extra keys
// first.
topo::NodeSpec read_node_fields(MapReader& node, topo::NodeSpec base);

// One node entry named `name`: in full (`source`, `accelerator` and the node keys), or `base:
// NAME` (any catalog node) and only the keys it changes. Does not call fields.finish().
CatalogNode read_node_entry(MapReader& fields, const std::string& name);

}  // namespace fathom::scenario
