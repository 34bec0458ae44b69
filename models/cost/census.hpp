// The census of a built cluster: what it is made of, counted from its topology, for the cost
// model to price (docs/cost.md). Nodes, accelerators, NICs and NVSwitch chips; per switch tier the
// switches, the cables from the tier below and the ports they and the cables above take. Every
// count is read from the built graph, so it cannot disagree with what the network model sees.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace fathom::cost {

// One switch tier of the scale-out fabric: 1 leaves, 2 spines, 3 cores.
struct FabricTierCensus {
  int tier = 1;
  std::size_t switches = 0;
  std::size_t cables_down = 0;  // cables from the tier below (NIC ports for the leaves) up to this tier
  std::size_t ports_down = 0;   // switch ports those cables take here (one each)
  std::size_t ports_up = 0;     // switch ports the cables to the tier above take here
  std::size_t most_ports = 0;   // the most ports any one switch of the tier uses (the radix it needs)
  std::size_t ports() const { return ports_down + ports_up; }
};

struct Census {
  std::size_t nodes = 0;                 // distinct nodes holding an accelerator or a NIC
  std::size_t gpus = 0;                  // accelerators
  std::size_t nics = 0;                  // scale-out NICs
  std::size_t nic_ports = 0;             // NIC ports cabled to a leaf
  std::size_t nvswitch_chips = 0;        // from the node spec (one NVSwitch plane is modelled per domain)
  std::vector<FabricTierCensus> fabric;  // tier 1 first; empty without a scale-out fabric

  // Fabric cables in all tiers, and switch ports in all tiers.
  std::size_t fabric_cables() const;
  std::size_t switch_ports() const;
};

// Counts `topology` (a topology::build_cluster result or any topology whose fabric links carry
// the host-leaf, leaf-spine and spine-core classes). Throws std::invalid_argument for a fabric
// link whose ends are not one tier apart.
Census census_of(const topo::Topology& topology);

// A few lines for a terminal: the counts, then a row per fabric tier.
std::string to_string(const Census& census);

}  // namespace fathom::cost
