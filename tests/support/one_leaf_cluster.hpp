// The `cluster:` section the serving tests share: `nodes` DGX H100s under one leaf and one spine
// of 400 Gb/s links, so that every replica's traffic stays on one switch.
#pragma once

#include <string>

namespace fathom::test {

inline std::string one_leaf_dgx_h100_cluster(int nodes) {
  return "cluster:\n"
         "  nodes: " +
         std::to_string(nodes) +
         "\n"
         "  node: dgx-h100\n"
         "  fabric:\n"
         "    kind: fat-tree\n"
         "    tiers: 2\n"
         "    hosts_per_leaf: " +
         std::to_string(8 * nodes) +
         "\n"
         "    leaves: 1\n"
         "    spines: 1\n"
         "    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n";
}

}  // namespace fathom::test
