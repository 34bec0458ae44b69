// Topology-aware placement: keep a job inside the smallest part of the fabric that can hold it,
// so that its collectives cross as few switch tiers as possible. The parts nest: a node, its
// NVLink island, its leaf, its pod, the cluster. The job goes to the lowest level at which some
// part has enough GPUs free, and there to the tightest such part (best fit, so that larger free
// parts stay whole for larger jobs). Inside it the job is split over the parts one level down,
// the emptiest first (so it spans the fewest), each share placed the same way. Ties go to the
// lowest-numbered part.
#include <algorithm>
#include <map>
#include <vector>

#include "models/placement/placement.hpp"

namespace fathom::place {

namespace {

enum Level { kNode, kIsland, kLeaf, kPod, kCluster };

std::int32_t group_of(const GpuPool& pool, std::int32_t node, int level) {
  switch (level) {
    case kNode:
      return node;
    case kIsland:
      return pool.island(node);
    case kLeaf:
      return pool.leaf(node);
    case kPod:
      return pool.pod(node);
    default:
      return 0;
  }
}

struct Part {
  std::int32_t id = 0;
  std::int64_t free = 0;
  std::vector<std::int32_t> nodes;
};

// `nodes` grouped into parts of `level`, in order of part number.
std::vector<Part> parts_of(const GpuPool& pool, const std::vector<std::int32_t>& nodes, int level) {
  std::map<std::int32_t, Part> parts;
  for (const std::int32_t n : nodes) {
    Part& p = parts[group_of(pool, n, level)];
    p.id = group_of(pool, n, level);
    p.free += pool.free(n);
    p.nodes.push_back(n);
  }
  std::vector<Part> out;
  for (auto& [id, p] : parts) out.push_back(std::move(p));
  return out;
}

// Places `need` GPUs on `nodes` (each with GPUs free, together at least `need`): in the tightest
// part of the lowest level that holds it all, split over that part's parts one level down,
// emptiest first, each placed the same way.
void fill(const GpuPool& pool, const std::vector<std::int32_t>& nodes, std::int32_t need, std::vector<NodeShare>& out) {
  for (int level = kNode; level <= kCluster; ++level) {
    const std::vector<Part> parts = parts_of(pool, nodes, level);
    const Part* best = nullptr;
    for (const Part& p : parts) {
      if (p.free >= need && (best == nullptr || p.free < best->free)) best = &p;
    }
    if (best == nullptr) continue;
    if (level == kNode) {
      out.push_back({best->id, need});
      return;
    }
    std::vector<Part> below = parts_of(pool, best->nodes, level - 1);
    std::stable_sort(below.begin(), below.end(), [](const Part& a, const Part& b) { return a.free > b.free; });
    for (const Part& p : below) {
      if (need == 0) break;
      const auto take = static_cast<std::int32_t>(std::min<std::int64_t>(p.free, need));
      fill(pool, p.nodes, take, out);
      need -= take;
    }
    return;
  }
}

}  // namespace

bool place_topology_aware(const GpuPool& pool, std::int32_t gpus, std::vector<NodeShare>& out) {
  if (gpus <= 0 || pool.total_free() < gpus) return false;
  std::vector<std::int32_t> open;
  for (std::int32_t n = 0; n < pool.nodes(); ++n) {
    if (pool.free(n) > 0) open.push_back(n);
  }
  fill(pool, open, gpus, out);
  return true;
}

}  // namespace fathom::place
