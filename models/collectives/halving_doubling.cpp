// Halving-doubling all-reduce (Rabenseifner): reduce-scatter by recursive halving, all-gather
// by recursive doubling, on a power-of-two group.
#include <bit>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::slices;
using detail::validate;

TransferDag halving_doubling_all_reduce(const CollectiveSpec& spec) {
  validate(spec, "halving-doubling all-reduce");
  const std::size_t n = spec.ranks.size();
  if (!std::has_single_bit(n)) {
    throw std::invalid_argument("halving-doubling all-reduce: the group size must be a power of two, got " +
                                std::to_string(n));
  }
  Builder b(spec.alpha_ns);
  std::vector<std::size_t> distances;  // reduce-scatter by halving, then all-gather by doubling
  for (std::size_t d = n / 2; d >= 1; d /= 2) distances.push_back(d);
  for (std::size_t d = 1; d < n; d *= 2) distances.push_back(d);
  for (std::size_t s = 0; s < distances.size(); ++s) {
    const std::size_t d = distances[s];
    // The segment exchanged is n / (2 d) of the buffer's n pieces: S/2, S/4, ... then back up.
    const double bytes = spec.bytes * static_cast<double>(d) / static_cast<double>(n);
    const Slicing cut = slices(spec, bytes);
    const int chunks = cut.count;
    b.set_slicing(cut);
    std::vector<std::optional<TransferIndex>> start(n);
    for (std::size_t i = 0; i < n; ++i) start[i] = b.last_recv(spec.ranks[i]);
    for (int c = 0; c < chunks; ++c) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<TransferIndex> after;
        if (c == 0 && start[i]) after.push_back(*start[i]);
        b.add(spec.ranks[i], spec.ranks[i ^ d], bytes * cut.fraction(c), std::move(after), c);
      }
    }
  }
  return b.take();
}

}  // namespace fathom::coll
