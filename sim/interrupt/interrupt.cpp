#include "sim/interrupt/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace fathom::sim {

namespace {

// Lock-free, so that the handler may store into it (async-signal-safe).
std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void record_signal(int signal) {
  received.store(signal, std::memory_order_relaxed);
  // The next one is not caught: a second Ctrl-C kills the process as it would without fathom.
  std::signal(signal, SIG_DFL);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(signal);
  }
}

}  // namespace

Interrupted::Interrupted(int signal) : std::runtime_error("interrupted by " + signal_name(signal)), signal_(signal) {}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes in progress carry on; the loops poll
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int pending_interrupt() { return received.load(std::memory_order_relaxed); }

void poll_interrupt() {
  if (const int s = pending_interrupt(); s != 0) throw Interrupted(s);
}

void clear_interrupt() { received.store(0, std::memory_order_relaxed); }

}  // namespace fathom::sim
