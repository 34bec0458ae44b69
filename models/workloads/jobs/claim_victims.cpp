#include "models/workloads/jobs/claim_victims.hpp"

#include <algorithm>
#include <map>

#include "models/placement/replica_placement.hpp"

namespace fathom::jobs {

namespace {

// The victims' order: lowest priority first, then the latest started, then the highest number.
bool victim_before(const VictimCandidate& a, const VictimCandidate& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.start != b.start) return a.start > b.start;
  return a.job > b.job;
}

}  // namespace

std::optional<Shrink> choose_shrink(const place::GpuPool& pool, std::vector<ShrinkCandidate> candidates,
                                    std::int32_t gpus,
                                    const std::function<bool(std::uint32_t job, std::int32_t gpus)>& can_take) {
  if (gpus > pool.largest_node()) return std::nullopt;
  std::sort(candidates.begin(), candidates.end(),
            [](const ShrinkCandidate& a, const ShrinkCandidate& b) { return victim_before(a.job, b.job); });
  for (const ShrinkCandidate& c : candidates) {
    std::optional<Shrink> best;
    for (const place::NodeShare& s : c.job.shares) {
      if (pool.capacity(s.node) < gpus) continue;
      // The fewest whole groups that make room and leave a width the job can take.
      const std::int32_t lack = gpus - pool.free(s.node);
      std::int32_t give = (lack + c.granule - 1) / c.granule * c.granule;
      while (give <= s.gpus && c.gpus - give >= c.min_gpus && !can_take(c.job.job, c.gpus - give)) give += c.granule;
      if (give > s.gpus || c.gpus - give < c.min_gpus) continue;
      const std::int32_t slack = pool.free(s.node) + give - gpus;
      if (best) {
        const std::int32_t best_slack = pool.free(best->release.node) + best->release.gpus - gpus;
        const bool worse = give != best->release.gpus ? give > best->release.gpus
                           : slack != best_slack      ? slack > best_slack
                                                      : s.node > best->release.node;
        if (worse) continue;
      }
      best = Shrink{c.job.job, {s.node, give}, {{s.node, gpus}}};
    }
    if (best) return best;
  }
  return std::nullopt;
}

std::optional<Eviction> choose_victims(const place::GpuPool& pool, std::vector<VictimCandidate> candidates,
                                       std::int32_t gpus) {
  std::sort(candidates.begin(), candidates.end(), victim_before);
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
