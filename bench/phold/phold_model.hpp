// PHOLD, the standard benchmark of parallel discrete-event engines, with ROSS's semantics.
//
// N LPs start with E events each, to themselves, at lookahead + Exp(mean - lookahead) from
// t = 0. Each event does no work and schedules exactly one new event, lookahead +
// Exp(mean - lookahead) later (so `mean` is the total mean increment), to a uniformly drawn
// LP of all N (itself included) with probability `remote`, else to itself. The draws per
// event follow ROSS's phold.c: one uniform for the remote test, one integer for the
// destination when remote, then the exponential. Time is in ROSS's abstract units, with
// 1.0 = 1,000,000 ns.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/simulation.hpp"

namespace fathom::bench {

struct PholdParams {
  std::uint32_t lps = 1024;
  std::uint32_t events_per_lp = 16;
  double mean = 1.0;       // abstract units
  double lookahead = 0.1;  // abstract units
  double remote = 0.1;     // fraction of events sent to a random LP
  double end = 1000.0;     // abstract units; events with time < end are committed
  std::uint64_t seed = 1;
};

constexpr double kPholdNsPerUnit = 1e6;

// Checks the parameters, throwing std::invalid_argument with the name of the bad one.
void validate(const PholdParams& params);

// A simulation of PHOLD with its lookahead declared, ready to run.
std::unique_ptr<sim::Simulation> make_phold(const PholdParams& params);

// Events sent to another LP by one PHOLD LP (read after the run).
std::uint64_t phold_remote_sends(const sim::Simulation& simulation, sim::LpId lp);

}  // namespace fathom::bench
