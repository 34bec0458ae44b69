#include "sim/context.hpp"

#include <string>

#include "sim/errors.hpp"

namespace fathom::sim {

void Context::fail_unknown_lp(LpId dst, EventKind kind) const {
  throw ModelError("LP " + std::to_string(self_) + " at t=" + format_time(now_) + " sent an event of kind " +
                   std::to_string(kind) + " to LP " + std::to_string(dst) + ", but the simulation has only " +
                   std::to_string(placements_->size()) + " LPs");
}

void Context::fail_delay(LpId dst, SimTime delay, EventKind kind, std::uint32_t dst_group) const {
  std::string what = "LP " + std::to_string(self_) + " at t=" + format_time(now_) + " sent an event of kind " +
                     std::to_string(kind) + " to LP " + std::to_string(dst) + " with a delay of " +
                     std::to_string(delay.ns()) + " ns";
  if (delay < SimTime::zero()) {
    what += ": an event cannot be scheduled in the past";
  } else {
    what += ", below the lookahead of " + std::to_string(lookahead_.ns()) + " ns that events between groups (here " +
            std::to_string(group_) + " -> " + std::to_string(dst_group) +
            ") must carry; raise the delay, lower the declared lookahead, or put both LPs in one group";
  }
  throw ModelError(what);
}

void Context::fail_overflow(LpId dst, SimTime delay, EventKind kind) const {
  throw ModelError("LP " + std::to_string(self_) + " at t=" + format_time(now_) + " sent an event of kind " +
                   std::to_string(kind) + " to LP " + std::to_string(dst) + " with a delay of " +
                   std::to_string(delay.ns()) + " ns, past the end of representable time");
}

}  // namespace fathom::sim
