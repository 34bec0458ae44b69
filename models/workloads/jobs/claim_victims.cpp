#include "models/workloads/jobs/claim_victims.hpp"

#include <algorithm>
#include <map>

#include "models/placement/replica_placement.hpp"

namespace fathom::jobs {

std::optional<Eviction> choose_victims(const place::GpuPool& pool, std::vector<VictimCandidate> candidates,
                                       std::int32_t gpus) {
  std::sort(candidates.begin(), candidates.end(), [](const VictimCandidate& a, const VictimCandidate& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.start != b.start) return a.start > b.start;
    return a.job > b.job;
  });
  place::GpuPool trial = pool;
  Eviction e;
  std::vector<const VictimCandidate*> picked;
  for (const VictimCandidate& c : candidates) {
    trial.give(c.shares);
    picked.push_back(&c);
    if (place::place_replica(trial, gpus, e.replica)) break;
  }
  if (e.replica.empty()) return std::nullopt;
  // GPUs free on each of the replica's nodes with the picks gone; a pick goes back when every
  // node keeps enough without it.
  std::map<std::int32_t, std::int32_t> spare;
  for (const place::NodeShare& s : e.replica) spare[s.node] = trial.free(s.node) - s.gpus;
  std::vector<bool> kept(picked.size(), true);
  for (std::size_t k = picked.size(); k-- > 0;) {
    bool needed = false;
    for (const place::NodeShare& s : picked[k]->shares) {
      const auto it = spare.find(s.node);
      if (it != spare.end() && it->second < s.gpus) needed = true;
    }
    if (needed) continue;
    kept[k] = false;
    for (const place::NodeShare& s : picked[k]->shares) {
      if (const auto it = spare.find(s.node); it != spare.end()) it->second -= s.gpus;
    }
  }
  for (std::size_t k = 0; k < picked.size(); ++k) {
    if (kept[k]) e.victims.push_back(picked[k]->job);
  }
  return e;
}

}  // namespace fathom::jobs
