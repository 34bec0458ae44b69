// The phases several collective builders share (dag_builder.hpp): a ring's steps, a pipelined
// chain, a rank order rotated to start at a root, and a point-to-point message's slices.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "models/collectives/dag_builder.hpp"

namespace fathom::coll::detail {

using topo::VertexId;

// `steps` ring steps over `order` (rank i sends to rank i+1): each rank sends step_bytes per
// step, in `chunks` slices. Slice c of step k at rank i forwards what rank i received as slice
// c of step k-1; step 0 waits for whatever rank i received last before this phase (the
// previous phase's result).
void ring_phase(Builder& b, const std::vector<VertexId>& order, int steps, double step_bytes, const Slicing& cut) {
  const std::size_t n = order.size();
  if (n < 2 || steps <= 0) return;
  b.set_slicing(cut);
  b.set_sends_in_flight(true);
  const int chunks = cut.count;
  const auto c_count = static_cast<std::size_t>(chunks);
  std::vector<std::optional<TransferIndex>> phase_start(n);
  for (std::size_t i = 0; i < n; ++i) phase_start[i] = b.last_recv(order[i]);
  // received[i * chunks + c]: the piece c rank i received in the previous step.
  std::vector<TransferIndex> received(n * c_count), next(n * c_count);
  for (int k = 0; k < steps; ++k) {
    b.set_step(static_cast<std::uint32_t>(k));
    for (std::size_t c = 0; c < c_count; ++c) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<TransferIndex> after;
        if (k > 0) {
          after.push_back(received[i * c_count + c]);
        } else if (phase_start[i]) {
          after.push_back(*phase_start[i]);
        }
        const std::size_t to = (i + 1) % n;
        next[to * c_count + c] = b.add(order[i], order[to], step_bytes * cut.fraction(static_cast<int>(c)),
                                       std::move(after), static_cast<int>(c));
      }
    }
    std::swap(received, next);
  }
  b.set_sends_in_flight(false);
}

// A pipelined chain order[0] -> order[1] -> ... : piece c moves on from a hop as soon as it arrived.
void chain(Builder& b, const std::vector<VertexId>& order, double bytes, const Slicing& cut) {
  if (order.size() < 2) return;
  b.set_slicing(cut);
  const int chunks = cut.count;
  const std::optional<TransferIndex> start = b.last_recv(order[0]);
  std::vector<TransferIndex> arrived(static_cast<std::size_t>(chunks));
  for (std::size_t c = 0; c < arrived.size(); ++c) {
    for (std::size_t j = 0; j + 1 < order.size(); ++j) {
      std::vector<TransferIndex> after;
      if (j > 0) {
        after.push_back(arrived[c]);
      } else if (start) {
        after.push_back(*start);
      }
      arrived[c] = b.add(order[j], order[j + 1], bytes * cut.fraction(static_cast<int>(c)), std::move(after),
                         static_cast<int>(c));
    }
  }
}

std::vector<VertexId> rotated(const std::vector<VertexId>& ranks, std::size_t first) {
  std::vector<VertexId> order;
  for (std::size_t j = 0; j < ranks.size(); ++j) order.push_back(ranks[(first + j) % ranks.size()]);
  return order;
}

Slicing slices(const CollectiveSpec& spec, double message_bytes) {
  return slicing(message_bytes, spec.slice_bytes, spec.max_slices, spec.step_ns);
}

void ring(Builder& b, const CollectiveSpec& spec, const std::vector<VertexId>& order, int steps, double step_bytes) {
  ring_phase(b, order, steps, step_bytes, slices(spec, step_bytes));
}

}  // namespace fathom::coll::detail
