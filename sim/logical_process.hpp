// LogicalProcess: a unit of model state that changes only when the engine hands it an event.
//
// An LP owns its state. It talks to other LPs only by sending events through its Context,
// never by touching their state; that is what lets the parallel scheduler run LPs of
// different partitions at the same time and still give the sequential answer.
#pragma once

#include "sim/event.hpp"

namespace fathom::sim {

class Context;

class LogicalProcess {
 public:
  virtual ~LogicalProcess() = default;
  // Called once at time 0, in LP order within each partition: schedule the first events here.
  virtual void on_start(Context& /*ctx*/) {}
  // Called for every event whose time is before the run's end, in the engine's total order.
  virtual void on_event(const Event& event, Context& ctx) = 0;
};

}  // namespace fathom::sim
