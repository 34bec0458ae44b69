#include "scenarios/collectives_reader.hpp"

#include "models/collectives/collective_parameters.hpp"
#include "scenarios/declared_reader.hpp"

namespace fathom::scenario {

void read_collectives_section(MapReader& c, coll::CollectiveParams& p,
                              const std::function<void(const ValueReader&)>& note) {
  // The tree's protocol bounds follow the ring's unless given: a section that sets only ll_max
  // means it for every algorithm. A section without either keeps what came before (catalog or
  // profile).
  const bool ll_max_alone = c.has("ll_max") && !c.has("tree_ll_max");
  const bool ll128_max_alone = c.has("ll128_max") && !c.has("tree_ll128_max");
  read_declared(c, coll::collective_parameters(), p, note);
  if (ll_max_alone) p.tree_ll_max_bytes = p.ll_max_bytes;
  if (ll128_max_alone) p.tree_ll128_max_bytes = p.ll128_max_bytes;
  c.finish();
}

}  // namespace fathom::scenario
