// Simulation: a set of logical processes and the schedulers that run them.
//
// Two schedulers give the same answer by construction:
//  - sequential: one queue, events in the engine's total order (sim/event.hpp);
//  - parallel: conservative and windowed. LP groups are split into partitions; all
//    partitions process the window [T, T + lookahead) at once on TBB threads, then hand
//    each other the events they sent across (sim/window_exchange.hpp), and the next window
//    starts at the earliest pending event, so idle stretches are skipped. An event between
//    groups carries at least the lookahead, so nothing sent in a window can land in it.
// Each LP therefore handles the same events in the same order under either scheduler, and
// draws the same random numbers from its own stream: results and the fingerprint are
// byte-identical for any thread count and partitioning.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/context.hpp"
#include "sim/logical_process.hpp"
#include "sim/stats/histogram.hpp"
#include "sim/time.hpp"

namespace fathom::sim {

enum class Scheduler { kSequential, kParallel };

// How groups of LPs are dealt to partitions.
enum class Partitioning {
  kBlock,       // contiguous runs of groups, balanced by LP count
  kRoundRobin,  // group i to partition i mod P
  kExplicit,    // RunOptions::partition_of_lp says
};

struct RunOptions {
  SimTime end = SimTime::max();  // events at or after `end` are not handled
  Scheduler scheduler = Scheduler::kSequential;
  unsigned threads = 1;     // parallel scheduler only
  unsigned partitions = 0;  // parallel scheduler only; 0 means one per thread
  Partitioning partitioning = Partitioning::kBlock;
  std::vector<PartitionId> partition_of_lp;  // with kExplicit: one entry per LP, groups kept whole
};

struct RunResult {
  std::uint64_t committed = 0;     // events handled (time < end)
  std::uint64_t fingerprint = 0;   // hash of every LP's committed (time, kind) sequence, in LP order
  std::uint64_t pending = 0;       // events left at or after the end
  SimTime last_event_time;         // time of the last event handled
  std::uint64_t windows = 0;       // parallel: windows processed
  LogHistogram events_per_window;  // parallel: events handled per window, all partitions together
  std::uint64_t cross_partition_events = 0;
  unsigned partitions = 1;
  std::vector<std::uint64_t> committed_per_partition;
  std::size_t queue_bytes = 0;  // storage held by the event queues at the end
};

// 16 lowercase hex digits, zero-padded: how fingerprints are printed everywhere.
std::string format_fingerprint(std::uint64_t fingerprint);

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed) : seed_(seed) {}
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation();

  static constexpr std::uint32_t kOwnGroup = 0xffffffffu;

  // Adds an LP and returns its id (0, 1, 2, ... in order of addition). LPs of one group are
  // never split across partitions, so events between them may have any delay >= 0. By
  // default each LP is a group of its own.
  LpId add(std::unique_ptr<LogicalProcess> lp, std::uint32_t group = kOwnGroup);

  // The least delay of any event between LPs of different groups: the parallel scheduler's
  // window. Models declare it from their own physics (a link latency, a scheduling delay).
  void set_lookahead(SimTime lookahead);
  SimTime lookahead() const { return lookahead_; }

  LpId lp_count() const { return static_cast<LpId>(lps_.size()); }
  LogicalProcess& lp(LpId id) { return *lps_.at(id); }
  const LogicalProcess& lp(LpId id) const { return *lps_.at(id); }
  std::uint64_t seed() const { return seed_; }

  // Runs the model once, from time 0 to options.end. Throws ConfigError for impossible
  // options, and lets a model's ModelError (or any exception of its own) propagate.
  RunResult run(const RunOptions& options);

 public:
  struct Partition;  // defined in simulation.cpp

 private:
  // Fills placements_: dense group numbers and each LP's partition.
  void assign_partitions(const RunOptions& options, unsigned partitions);
  RunResult finish(std::vector<std::unique_ptr<Partition>>& parts, WindowExchange* exchange);

  std::uint64_t seed_;
  SimTime lookahead_ = SimTime::zero();
  std::vector<std::unique_ptr<LogicalProcess>> lps_;
  std::vector<std::uint32_t> groups_;
  std::vector<LpPlacement> placements_;
  std::vector<LpState> states_;
  bool ran_ = false;
};

}  // namespace fathom::sim
