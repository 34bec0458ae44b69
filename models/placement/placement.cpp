#include "models/placement/placement.hpp"

namespace fathom::place {

std::string_view placement_name(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::kFirstFit:
      return "first-fit";
    case PlacementPolicy::kBestFit:
      return "best-fit";
    case PlacementPolicy::kTopologyAware:
      return "topology-aware";
  }
  return "?";
}

bool place(PlacementPolicy policy, const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out) {
  switch (policy) {
    case PlacementPolicy::kFirstFit:
      return place_first_fit(pool, gpus, out);
    case PlacementPolicy::kBestFit:
      return place_best_fit(pool, gpus, out);
    case PlacementPolicy::kTopologyAware:
      return place_topology_aware(pool, gpus, out);
  }
  return false;
}

}  // namespace fathom::place
