#include "models/cost/census.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <vector>

namespace fathom::cost {

namespace {

// The switch tier a fabric link's upper end is on, or 0 for a link inside a node.
int upper_tier(topo::LinkClass cls) {
  switch (cls) {
    case topo::LinkClass::kHostLeaf:
      return 1;
    case topo::LinkClass::kLeafSpine:
      return 2;
    case topo::LinkClass::kSpineCore:
      return 3;
    case topo::LinkClass::kNvLink:
    case topo::LinkClass::kPcie:
    case topo::LinkClass::kStorage:
      return 0;
  }
  return 0;
}

FabricTierCensus& tier_entry(Census& c, int tier) {
  while (static_cast<int>(c.fabric.size()) < tier) {
    FabricTierCensus t;
    t.tier = static_cast<int>(c.fabric.size()) + 1;
    c.fabric.push_back(t);
  }
  return c.fabric[static_cast<std::size_t>(tier - 1)];
}

}  // namespace

std::size_t Census::fabric_cables() const {
  std::size_t n = 0;
  for (const auto& t : fabric) n += t.cables_down;
  return n;
}

std::size_t Census::switch_ports() const {
  std::size_t n = 0;
  for (const auto& t : fabric) n += t.ports();
  return n;
}

Census census_of(const topo::Topology& topology) {
  Census c;
  std::set<std::int32_t> nodes;
  for (const topo::Vertex& v : topology.vertices()) {
    if (v.kind == topo::VertexKind::kGpu) ++c.gpus;
    if (v.kind == topo::VertexKind::kNic) ++c.nics;
    if ((v.kind == topo::VertexKind::kGpu || v.kind == topo::VertexKind::kNic) && v.node >= 0) nodes.insert(v.node);
    if (v.kind == topo::VertexKind::kSwitch) ++tier_entry(c, v.tier).switches;
  }
  c.nodes = nodes.size();
  if (!topology.summary.switches_per_tier.empty()) c.nvswitch_chips = topology.summary.switches_per_tier[0];
  // A cable is two directed links; count the upward one.
  std::vector<std::size_t> ports(topology.vertices().size(), 0);
  for (const topo::Link& l : topology.links()) {
    const int tier = upper_tier(l.cls);
    if (tier == 0) continue;
    const topo::Vertex& from = topology.vertex(l.from);
    const topo::Vertex& to = topology.vertex(l.to);
    const bool from_switch = from.kind == topo::VertexKind::kSwitch;
    const int from_tier = from_switch ? from.tier : 0;
    if (to.kind != topo::VertexKind::kSwitch || to.tier != tier) continue;  // the downward link
    if (from_tier != tier - 1) {
      throw std::invalid_argument("census: " + l.name + " joins tiers " + std::to_string(from_tier) + " and " +
                                  std::to_string(to.tier) + "; a fabric cable joins adjacent tiers");
    }
    FabricTierCensus& up = tier_entry(c, tier);
    ++up.cables_down;
    ++up.ports_down;
    ++ports[l.to];
    if (from_switch) {
      ++ports[l.from];
      ++tier_entry(c, from_tier).ports_up;
    } else {
      ++c.nic_ports;
    }
  }
  for (topo::VertexId v = 0; v < ports.size(); ++v) {
    const topo::Vertex& x = topology.vertex(v);
    if (x.kind != topo::VertexKind::kSwitch) continue;
    auto& most = tier_entry(c, x.tier).most_ports;
    most = std::max(most, ports[v]);
  }
  return c;
}

std::string to_string(const Census& c) {
  static const char* const kTierNames[] = {"leaf", "spine", "core"};
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "census: %zu nodes, %zu GPUs, %zu NVSwitch chips, %zu NICs (%zu ports cabled)\n",
                c.nodes, c.gpus, c.nvswitch_chips, c.nics, c.nic_ports);
  out += line;
  if (c.fabric.empty()) return out;
  std::snprintf(line, sizeof line, "  %-6s %9s %13s %11s %9s\n", "tier", "switches", "cables below", "ports down",
                "ports up");
  out += line;
  for (const auto& t : c.fabric) {
    const char* name = t.tier >= 1 && t.tier <= 3 ? kTierNames[t.tier - 1] : "tier";
    std::snprintf(line, sizeof line, "  %-6s %9zu %13zu %11zu %9zu\n", name, t.switches, t.cables_down, t.ports_down,
                  t.ports_up);
    out += line;
  }
  return out;
}

}  // namespace fathom::cost
