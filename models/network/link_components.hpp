// Independent parts of a set of flows: two flows belong to one part when a chain of shared links
// joins them. Max-min fairness couples flows only through the links they share, so each part can
// be rated on its own, by its own logical process (net::simulate_transfers), with the same rates
// as all of them together: the flows of one node's NVLink domain, say, never meet another node's.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/flow_transfer.hpp"

namespace fathom::net {

struct FlowParts {
  std::vector<std::uint32_t> part_of_flow;  // per flow; a flow without links joins part 0
  std::uint32_t parts = 0;                  // numbered in order of each part's first flow
};

// Throws std::invalid_argument for a route link at or past `link_count`.
FlowParts independent_parts(const std::vector<RoutedFlow>& flows, std::size_t link_count);

}  // namespace fathom::net
