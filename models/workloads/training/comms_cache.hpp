// The StepComms of the clusters recent steps ran on, for a caller that simulates many steps:
// a planner evaluating thousands of strategies on a handful of clusters builds each cluster's
// topology and routes once and times each distinct collective once (docs/plan.md, "Speed").
// A step that borrows a cached StepComms gives the same result, to the bit, as one that builds
// its own: the cache is keyed on everything the StepComms's memos depend on (the cluster spec,
// the collective parameters and the seed, compared field by field), and begin_step() clears
// what belongs to one step. Not thread-safe: keep one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/workloads/training/step_comms.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::train {

class CommsCache {
 public:
  // At most `capacity` clusters are kept; the least recently used goes first.
  explicit CommsCache(std::size_t capacity = 4) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The StepComms for this cluster, parameters and seed, ready for a new step (begin_step()).
  StepComms& acquire(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params, std::uint64_t seed);
  // The cluster's topology (topo::build_cluster), from the same entries.
  const topo::Topology& topology(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                                 std::uint64_t seed) {
    return find_or_build(cluster, params, seed).topology();
  }

  std::size_t hits() const { return hits_; }
  std::size_t builds() const { return builds_; }

 private:
  StepComms& find_or_build(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params, std::uint64_t seed);

  struct Entry {
    topo::ClusterSpec cluster;
    coll::CollectiveParams params;
    std::uint64_t seed = 0;
    std::unique_ptr<StepComms> comms;
  };
  std::size_t capacity_;
  std::vector<Entry> entries_;  // the most recently used last
  std::size_t hits_ = 0;
  std::size_t builds_ = 0;
};

}  // namespace fathom::train
