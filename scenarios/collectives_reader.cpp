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
  // Thresholds given mean thresholds chosen (NCCL's cost model is the default otherwise).
  bool thresholds = false;
  for (const char* key : {"ll_max", "ll128_max", "tree_ll_max", "tree_ll128_max", "nvls_min", "tree_max"}) {
    thresholds = thresholds || c.has(key);
  }
  const bool tuner_given = c.has("tuner");
  read_declared(c, coll::collective_parameters(), p, note);
  if (thresholds && !tuner_given) p.tuner = coll::Tuner::kThresholds;
  if (ll_max_alone) p.tree_ll_max_bytes = p.ll_max_bytes;
  if (ll128_max_alone) p.tree_ll128_max_bytes = p.ll128_max_bytes;
  c.finish();
}

}  // namespace fathom::scenario
