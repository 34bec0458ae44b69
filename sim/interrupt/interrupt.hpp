// Stopping a run cleanly on SIGINT or SIGTERM (Ctrl-C, `kill`).
//
// The handler only records the signal. Long loops (the engine's event loop, the flow model's
// completions, a calibration's fit) call poll_interrupt() at their boundaries, which throws
// Interrupted; the exception unwinds through the output writers, which remove their temporary
// files, and the front end prints "interrupted" and exits 128 + the signal's number (130 for
// SIGINT, 143 for SIGTERM), the shell's convention. A second signal while the first unwinds
// takes the default action: a user who presses Ctrl-C twice gets the process killed.
#pragma once

#include <stdexcept>

namespace fathom::sim {

// The run was stopped by a signal; `signal()` is its number.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Installs the SIGINT and SIGTERM handlers (the front end does, once, before any work).
void install_interrupt_handlers();

// The signal received since the handlers were installed, or 0.
int pending_interrupt();

// Throws Interrupted if a signal has been received. Cheap: one relaxed atomic load.
void poll_interrupt();

// For tests: forget a recorded signal.
void clear_interrupt();

}  // namespace fathom::sim
