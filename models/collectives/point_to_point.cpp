// All-to-all and send/recv: every pair's message at once, sharing each GPU's links.
#include <cstddef>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::validate;

TransferDag direct_all_to_all(const CollectiveSpec& spec) {
  validate(spec, "direct all-to-all");
  Builder b(spec.alpha_ns);
  const std::size_t n = spec.ranks.size();
  // Everything at once: a GPU's n-1 sends share its links max-min fairly.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 1; k < n; ++k) {
      b.add(spec.ranks[i], spec.ranks[(i + k) % n], spec.bytes / static_cast<double>(n), {}, 0, false, false);
    }
  }
  return b.take();
}

TransferDag send_recv(const CollectiveSpec& spec) {
  validate(spec, "send/recv", 2);
  Builder b(spec.alpha_ns);
  const std::size_t n = spec.ranks.size();
  if (n == 2) {
    b.add(spec.ranks[0], spec.ranks[1], spec.bytes, {});
  } else {
    for (std::size_t r = 0; r < n; ++r) b.add(spec.ranks[r], spec.ranks[(r + 1) % n], spec.bytes, {});
  }
  return b.take();
}

}  // namespace fathom::coll
