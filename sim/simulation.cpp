#include "sim/simulation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "sim/errors.hpp"
#include "sim/hash.hpp"
#include "sim/interrupt/interrupt.hpp"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace fathom::sim {

// One partition: its LPs, its queue and the context its LPs see. Cache-line aligned so
// that two partitions' counters never share a line.
struct alignas(64) Simulation::Partition {
  Partition(PartitionId id_, const std::vector<LpPlacement>* placements, SimTime lookahead, WindowExchange* exchange)
      : id(id_), ctx(placements, lookahead, id_, &queue, exchange) {}

  PartitionId id;
  EventQueue queue;
  Context ctx;
  std::vector<LpId> lps;
  std::uint64_t committed = 0;
  SimTime last_event_time;
};

namespace {

using Partition = Simulation::Partition;

void start_partition(Partition& p, std::vector<LpState>& states, const std::vector<LpPlacement>& placements) {
  for (LpId id : p.lps) {
    LpState& s = states[id];
    p.ctx.bind(id, placements[id].group, &s, SimTime::zero());
    s.lp->on_start(p.ctx);
  }
}

// Handles, in total order, every event of the partition earlier than `until`. This loop is
// the engine's hot path: no allocation, one virtual call per event.
void process_partition(Partition& p, SimTime until, std::vector<LpState>& states,
                       const std::vector<LpPlacement>& placements) {
  EventQueue& queue = p.queue;
  std::uint64_t committed = 0;
  SimTime last = p.last_event_time;
  while (!queue.empty() && queue.min_time() < until) {
    const Event e = queue.pop();
    LpState& s = states[e.dst];
    s.digest = hash_combine(hash_combine(s.digest, static_cast<std::uint64_t>(e.time.ns())), e.kind);
    ++s.committed;
    p.ctx.bind(e.dst, placements[e.dst].group, &s, e.time);
    s.lp->on_event(e, p.ctx);
    ++committed;
    last = e.time;
    // A signal stops the run at an event boundary; polling every 4096 events keeps the hot
    // path's cost to a counter test.
    if ((committed & 4095U) == 0) poll_interrupt();
  }
  p.committed += committed;
  p.last_event_time = last;
}

// Debian's oneTBB is not built with ThreadSanitizer, so TSan cannot see how TBB hands a
// task to a worker thread and waits for it, and would report the worker's first reads of
// the task as races. These annotations declare exactly the two edges that the barrier
// around a parallel_for provides: coordinator -> every task at launch, every task ->
// coordinator at the end. They never order two tasks, so races between partitions inside
// a window are still reported. They compile to nothing without TSan.
char tbb_launch_edge;
char tbb_done_edge;
inline void tsan_release([[maybe_unused]] void* edge) {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(edge);
#endif
}
inline void tsan_acquire([[maybe_unused]] void* edge) {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(edge);
#endif
}

// Runs `body` once per partition, on the arena's threads, and returns when all are done.
template <class Body>
void for_each_partition(tbb::task_arena& arena, std::vector<std::unique_ptr<Partition>>& parts, Body&& body) {
  tsan_release(&tbb_launch_edge);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, parts.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          tsan_acquire(&tbb_launch_edge);
          for (std::size_t i = range.begin(); i != range.end(); ++i) body(*parts[i]);
          tsan_release(&tbb_done_edge);
        },
        tbb::static_partitioner());
  });
  tsan_acquire(&tbb_done_edge);
}

}  // namespace

std::string format_fingerprint(std::uint64_t fingerprint) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fingerprint));
  return buf;
}

Simulation::~Simulation() = default;

LpId Simulation::add(std::unique_ptr<LogicalProcess> lp, std::uint32_t group) {
  if (!lp) throw ConfigError("Simulation::add: null logical process");
  if (ran_) throw ConfigError("Simulation::add: the simulation has already run");
  if (lps_.size() >= 0xffffffffu) throw ConfigError("Simulation::add: too many LPs for 32-bit ids");
  lps_.push_back(std::move(lp));
  groups_.push_back(group);
  return static_cast<LpId>(lps_.size() - 1);
}

void Simulation::set_lookahead(SimTime lookahead) {
  if (lookahead < SimTime::zero()) {
    throw ConfigError("Simulation::set_lookahead: the lookahead must be >= 0 ns, got " +
                      std::to_string(lookahead.ns()) + " ns");
  }
  lookahead_ = lookahead;
}

void Simulation::assign_partitions(const RunOptions& options, unsigned partitions) {
  const std::size_t n = lps_.size();
  // Dense group numbers, in order of first appearance.
  std::vector<std::uint32_t> dense(n);
  std::unordered_map<std::uint32_t, std::uint32_t> numbering;
  std::vector<std::size_t> group_sizes;
  for (std::size_t i = 0; i < n; ++i) {
    if (groups_[i] == kOwnGroup) {
      dense[i] = static_cast<std::uint32_t>(group_sizes.size());
      group_sizes.push_back(1);
    } else {
      auto [it, inserted] = numbering.try_emplace(groups_[i], static_cast<std::uint32_t>(group_sizes.size()));
      if (inserted) group_sizes.push_back(0);
      dense[i] = it->second;
      ++group_sizes[it->second];
    }
  }
  std::vector<PartitionId> of_group(group_sizes.size());
  switch (options.partitioning) {
    case Partitioning::kBlock: {
      std::size_t seen = 0;
      PartitionId p = 0;
      for (std::size_t g = 0; g < group_sizes.size(); ++g) {
        // Move on once this partition holds its share of the LPs.
        while (p + 1 < partitions && seen >= (p + 1) * n / partitions) ++p;
        of_group[g] = p;
        seen += group_sizes[g];
      }
      break;
    }
    case Partitioning::kRoundRobin:
      for (std::size_t g = 0; g < group_sizes.size(); ++g) of_group[g] = static_cast<PartitionId>(g % partitions);
      break;
    case Partitioning::kExplicit: {
      if (options.partition_of_lp.size() != n) {
        throw ConfigError("explicit partitioning: partition_of_lp has " +
                          std::to_string(options.partition_of_lp.size()) + " entries for " + std::to_string(n) +
                          " LPs");
      }
      std::vector<bool> set(group_sizes.size(), false);
      for (std::size_t i = 0; i < n; ++i) {
        const PartitionId p = options.partition_of_lp[i];
        if (p >= partitions) {
          throw ConfigError("explicit partitioning: LP " + std::to_string(i) + " is put in partition " +
                            std::to_string(p) + " of " + std::to_string(partitions));
        }
        if (set[dense[i]] && of_group[dense[i]] != p) {
          throw ConfigError("explicit partitioning: LP " + std::to_string(i) + " is put in partition " +
                            std::to_string(p) + " away from the rest of its group, in partition " +
                            std::to_string(of_group[dense[i]]));
        }
        set[dense[i]] = true;
        of_group[dense[i]] = p;
      }
      break;
    }
  }
  placements_.resize(n);
  for (std::size_t i = 0; i < n; ++i) placements_[i] = {dense[i], of_group[dense[i]]};
}

RunResult Simulation::run(const RunOptions& options) {
  if (ran_) throw ConfigError("Simulation::run: a simulation runs once; build a new one to run again");
  if (options.end < SimTime::zero()) throw ConfigError("Simulation::run: the end time must be >= 0");
  const bool parallel = options.scheduler == Scheduler::kParallel;
  if (parallel && options.threads == 0) throw ConfigError("Simulation::run: the parallel scheduler needs >= 1 thread");
  const unsigned partitions = parallel ? (options.partitions == 0 ? options.threads : options.partitions) : 1;
  if (partitions > 1 && lookahead_ <= SimTime::zero()) {
    throw ConfigError("Simulation::run: " + std::to_string(partitions) +
                      " partitions need a positive lookahead, and the model declared none");
  }
  ran_ = true;

  assign_partitions(options, partitions);
  states_.assign(lps_.size(), LpState{});
  for (std::size_t i = 0; i < lps_.size(); ++i) {
    states_[i].lp = lps_[i].get();
    states_[i].rng = RandomStream(seed_, i);
  }

  std::unique_ptr<ThreadExchange> exchange;
  if (partitions > 1) exchange = std::make_unique<ThreadExchange>(partitions);
  std::vector<std::unique_ptr<Partition>> parts;
  for (PartitionId p = 0; p < partitions; ++p) {
    parts.push_back(std::make_unique<Partition>(p, &placements_, lookahead_, exchange.get()));
  }
  for (LpId id = 0; id < lps_.size(); ++id) parts[placements_[id].partition]->lps.push_back(id);

  if (!parallel) {
    start_partition(*parts[0], states_, placements_);
    process_partition(*parts[0], options.end, states_, placements_);
    return finish(parts, nullptr);
  }

  tbb::task_arena arena(static_cast<int>(options.threads));
  auto least_local = [&] {
    SimTime least = SimTime::max();
    for (auto& p : parts) {
      if (!p->queue.empty()) least = std::min(least, p->queue.min_time());
    }
    return least;
  };
  auto end_window = [&] { return exchange ? exchange->end_window(least_local()) : least_local(); };

  for_each_partition(arena, parts, [&](Partition& p) { start_partition(p, states_, placements_); });
  std::uint64_t windows = 0;
  LogHistogram events_per_window;
  std::uint64_t committed_before = 0;
  for (SimTime t = end_window(); t < options.end; t = end_window()) {
    // With a single partition nothing crosses, and a window may span the whole run.
    const SimTime until =
        lookahead_ > SimTime::zero() ? std::min(SimTime::saturating_add(t, lookahead_), options.end) : options.end;
    for_each_partition(arena, parts, [&](Partition& p) {
      if (exchange) exchange->collect(p.id, p.queue);
      process_partition(p, until, states_, placements_);
    });
    ++windows;
    std::uint64_t committed = 0;
    for (const auto& p : parts) committed += p->committed;
    events_per_window.add(committed - committed_before);
    committed_before = committed;
  }
  if (exchange) {
    for (auto& p : parts) exchange->collect(p->id, p->queue);
  }
  RunResult result = finish(parts, exchange.get());
  result.windows = windows;
  result.events_per_window = events_per_window;
  return result;
}

RunResult Simulation::finish(std::vector<std::unique_ptr<Partition>>& parts, WindowExchange* exchange) {
  RunResult r;
  r.partitions = static_cast<unsigned>(parts.size());
  for (auto& p : parts) {
    r.committed += p->committed;
    r.pending += p->queue.size();
    r.queue_bytes += p->queue.capacity_bytes();
    r.last_event_time = std::max(r.last_event_time, p->last_event_time);
    r.committed_per_partition.push_back(p->committed);
  }
  if (exchange) r.cross_partition_events = exchange->events_exchanged();
  std::uint64_t h = 0x666174686f6dULL;  // "fathom"
  for (std::size_t i = 0; i < states_.size(); ++i) {
    h = hash_combine(h, i);
    h = hash_combine(h, states_[i].committed);
    h = hash_combine(h, states_[i].digest);
  }
  r.fingerprint = h;
  return r;
}

}  // namespace fathom::sim
