#include "models/workloads/training/comms_cache.hpp"

#include <utility>

namespace fathom::train {

StepComms& CommsCache::acquire(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                               std::uint64_t seed) {
  StepComms& comms = find_or_build(cluster, params, seed);
  comms.begin_step();
  return comms;
}

StepComms& CommsCache::find_or_build(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                                     std::uint64_t seed) {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].seed != seed || !(entries_[i].params == params) || !(entries_[i].cluster == cluster)) continue;
    // Most recently used last.
    Entry hit = std::move(entries_[i]);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    entries_.push_back(std::move(hit));
    ++hits_;
    return *entries_.back().comms;
  }
  if (entries_.size() >= capacity_) entries_.erase(entries_.begin());
  ++builds_;
  entries_.push_back({cluster, params, seed, std::make_unique<StepComms>(cluster, params, seed)});
  return *entries_.back().comms;
}

}  // namespace fathom::train
