// Ring collectives as NCCL runs them: one ring per channel (a rotation of every node's ranks
// on multi-node groups), all-reduce as reduce-scatter then all-gather, and broadcast and reduce
// as a pipelined chain from or to the root.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::chain;
using detail::ring;
using detail::rotated;
using detail::validate;
using topo::VertexId;

namespace {

// A chain's slices: its hops pipeline the message, so the cap grows with the chain's length.
Slicing chain_slices(const CollectiveSpec& spec) {
  return slicing(spec.bytes, spec.slice_bytes, chain_slice_cap(spec.max_slices, spec.ranks.size()), spec.step_ns);
}

// The first `steps` of a ring collective's steps of bytes / n, one ring per channel on bytes / C,
// each transfer labelled with its step.
StepDag channel_rings(const std::vector<std::vector<VertexId>>& channels, const CollectiveSpec& spec, int steps) {
  Builder b(spec.alpha_ns);
  const int n = static_cast<int>(spec.ranks.size());
  const double channel_bytes = spec.bytes / static_cast<double>(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    b.set_channel(static_cast<int>(c));
    ring(b, spec, channels[c], steps, channel_bytes / n);
  }
  return b.take_steps();
}

TransferDag channel_rings(const std::vector<std::vector<VertexId>>& channels, const CollectiveSpec& spec,
                          bool all_reduce) {
  return channel_rings(channels, spec, ring_step_count(all_reduce ? Op::kAllReduce : Op::kAllGather, spec.ranks.size()))
      .dag;
}

}  // namespace

std::vector<std::vector<VertexId>> ring_channels(const topo::Topology& topology, const std::vector<VertexId>& ranks) {
  const GroupShape shape = group_shape(topology, ranks);
  if (shape.nodes < 2 || shape.ranks_per_node < 2) return {ranks};
  const auto nodes = ranks_by_node(topology, ranks);
  const auto g = static_cast<std::size_t>(shape.ranks_per_node);
  std::vector<std::vector<VertexId>> channels(g);
  for (std::size_t c = 0; c < g; ++c) {
    for (const auto& node : nodes) {
      for (std::size_t j = 0; j < g; ++j) channels[c].push_back(node[(c + j) % g]);
    }
  }
  return channels;
}

TransferDag ring_all_reduce(const CollectiveSpec& spec) {
  validate(spec, "ring all-reduce");
  return channel_rings({spec.ranks}, spec, true);
}

TransferDag ring_reduce_scatter(const CollectiveSpec& spec) {
  validate(spec, "ring reduce-scatter");
  return channel_rings({spec.ranks}, spec, false);
}

TransferDag ring_all_gather(const CollectiveSpec& spec) {
  validate(spec, "ring all-gather");
  return channel_rings({spec.ranks}, spec, false);
}

TransferDag ring_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring all-reduce");
  return channel_rings(ring_channels(topology, spec.ranks), spec, true);
}

TransferDag ring_reduce_scatter(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring reduce-scatter");
  return channel_rings(ring_channels(topology, spec.ranks), spec, false);
}

TransferDag ring_all_gather(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "ring all-gather");
  return channel_rings(ring_channels(topology, spec.ranks), spec, false);
}

bool is_stepped_ring(Op op, Algorithm algorithm) {
  return algorithm == Algorithm::kRing && (op == Op::kAllReduce || op == Op::kReduceScatter || op == Op::kAllGather);
}

int ring_step_count(Op op, std::size_t ranks) {
  const int n = static_cast<int>(ranks);
  return op == Op::kAllReduce ? 2 * (n - 1) : n - 1;
}

StepDag ring_first_steps(Op op, const topo::Topology& topology, const CollectiveSpec& spec, int steps) {
  if (!is_stepped_ring(op, Algorithm::kRing)) {
    throw std::invalid_argument(std::string("ring_first_steps: ") + std::string(to_string(op)) +
                                " is not a stepped ring collective");
  }
  validate(spec, "ring collective");
  if (steps < 0 || steps > ring_step_count(op, spec.ranks.size())) {
    throw std::invalid_argument("ring_first_steps: " + std::to_string(steps) + " steps of " +
                                std::to_string(ring_step_count(op, spec.ranks.size())));
  }
  return channel_rings(ring_channels(topology, spec.ranks), spec, steps);
}

TransferDag ring_broadcast(const CollectiveSpec& spec) {
  validate(spec, "ring broadcast");
  Builder b(spec.alpha_ns);
  chain(b, rotated(spec.ranks, static_cast<std::size_t>(spec.root)), spec.bytes, chain_slices(spec));
  return b.take();
}

TransferDag ring_reduce(const CollectiveSpec& spec) {
  validate(spec, "ring reduce");
  Builder b(spec.alpha_ns);
  chain(b, rotated(spec.ranks, static_cast<std::size_t>(spec.root) + 1), spec.bytes, chain_slices(spec));
  return b.take();
}

}  // namespace fathom::coll
