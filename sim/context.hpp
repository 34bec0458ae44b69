// Context: the engine as one LP sees it while it handles an event or starts.
//
// It tells the time and the LP's identity, hands out the LP's own random stream, and sends
// events. send() is the hot path of every model, so it is inline and allocates nothing:
// a local event goes straight into the partition's queue, a remote one to the exchange.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/event.hpp"
#include "sim/event_queue.hpp"
#include "sim/random.hpp"
#include "sim/time.hpp"
#include "sim/window_exchange.hpp"

namespace fathom::sim {

class LogicalProcess;

// Where an LP lives: read-only while a run is in progress.
struct LpPlacement {
  std::uint32_t group = 0;  // LPs of one group always share a partition
  PartitionId partition = 0;
};

// What the engine keeps for each LP: mutated only by the partition that owns the LP.
struct LpState {
  LogicalProcess* lp = nullptr;
  std::uint64_t sent = 0;       // events sent: the next event's sequence number
  std::uint64_t committed = 0;  // events handled
  std::uint64_t digest = 0;     // running hash of (time, kind) of the events handled, in order
  RandomStream rng;
};

class Context {
 public:
  SimTime now() const { return now_; }
  LpId self() const { return self_; }
  LpId lp_count() const { return static_cast<LpId>(placements_->size()); }
  RandomStream& rng() { return state_->rng; }

  // Schedules `kind` on `dst` at now() + delay. Delays are never negative; between LPs of
  // different groups they are at least the declared lookahead. Breaking either rule throws
  // ModelError, whichever scheduler runs, so a model that passes sequentially also runs in
  // parallel.
  void send(LpId dst, SimTime delay, EventKind kind, Payload payload = {}, std::uint8_t priority = 0) {
    if (dst >= placements_->size()) fail_unknown_lp(dst, kind);
    const LpPlacement& to = (*placements_)[dst];
    if (delay < lookahead_ && (delay < SimTime::zero() || to.group != group_)) fail_delay(dst, delay, kind, to.group);
    if (delay > SimTime::max() - now_) fail_overflow(dst, delay, kind);
    const Event e{now_ + delay, state_->sent++, self_, dst, kind, priority, payload};
    if (to.partition == partition_) {
      queue_->push(e);
    } else {
      exchange_->post(partition_, to.partition, e);
    }
  }

  // Used by the engine: binds the context to one partition, then to the LP being served.
  Context(const std::vector<LpPlacement>* placements, SimTime lookahead, PartitionId partition, EventQueue* queue,
          WindowExchange* exchange)
      : placements_(placements), lookahead_(lookahead), partition_(partition), queue_(queue), exchange_(exchange) {}
  void bind(LpId lp, std::uint32_t group, LpState* state, SimTime now) {
    self_ = lp;
    group_ = group;
    state_ = state;
    now_ = now;
  }

 private:
  [[noreturn]] void fail_unknown_lp(LpId dst, EventKind kind) const;
  [[noreturn]] void fail_delay(LpId dst, SimTime delay, EventKind kind, std::uint32_t dst_group) const;
  [[noreturn]] void fail_overflow(LpId dst, SimTime delay, EventKind kind) const;

  const std::vector<LpPlacement>* placements_;
  SimTime lookahead_;
  PartitionId partition_;
  EventQueue* queue_;
  WindowExchange* exchange_;  // null when there is only one partition
  LpId self_ = 0;
  std::uint32_t group_ = 0;
  LpState* state_ = nullptr;
  SimTime now_;
};

}  // namespace fathom::sim
