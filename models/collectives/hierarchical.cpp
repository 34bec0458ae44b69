// Hierarchical all-reduce: a ring reduce-scatter inside every node, a ring all-reduce of each
// slice across the nodes on its rail, and a ring all-gather inside every node.
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::by_node;
using detail::ring;
using detail::validate;

TransferDag hierarchical_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "hierarchical all-reduce");
  const auto nodes = by_node(topology, spec.ranks, "hierarchical all-reduce");
  const int g = static_cast<int>(nodes[0].size());
  const int node_count = static_cast<int>(nodes.size());
  Builder b(spec.alpha_ns);
  for (const auto& n : nodes) ring(b, spec, n, g - 1, spec.bytes / g);
  // After the ring reduce-scatter each rail's ranks hold the same slice index: all-reduce it.
  for (const auto& rail : rails_of(nodes)) ring(b, spec, rail, 2 * (node_count - 1), spec.bytes / g / node_count);
  for (const auto& n : nodes) ring(b, spec, n, g - 1, spec.bytes / g);
  return b.take();
}

}  // namespace fathom::coll
