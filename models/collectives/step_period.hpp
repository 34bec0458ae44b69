// Timing a collective that repeats one step many times (a ring's 2(n-1) steps) from its first
// steps: the makespan of the whole, found by simulating a prefix until the prefix shows a period,
// then extrapolating it.
//
// Why it holds. A ring's steps are identical: every step moves the same bytes over the same
// connections, and with connection hashing (connection_hash) the same routes. Once a step's
// finish follows the previous one's by a fixed time P, and the steps that follow start from the
// same state shifted by P, every later step repeats it: the run is periodic. A prefix of m steps is
// run on the flow network; F_k is the last finish of step k. The prefix is accepted as periodic
// when the last half of its steps (the prefix's own last step included, which has no step behind
// it to compete with) all finish within 1 ns of their mean spacing P; the makespan is then
// F_{m-1} + (steps - m) P. Otherwise m doubles, up to the whole DAG, which is run exactly, so
// anything that breaks the repetition (a collision pattern that changes, other traffic) costs at
// most about twice a full run. The acceptance is a check on the prefix, not a proof about the
// steps after it: a disturbance that would only show after more steps than the window holds
// (a slow wave travelling round the ring's ranks) would be extrapolated over. So the tests hold
// the result to the whole DAG on every fabric shape they cover, and on the 16K example's fabric
// the whole DAG and the prefix agreed to the nanosecond on 256 to 1,024 GPUs.
//
// Background traffic (`background`, transfers of other work sharing the fabric) takes part in
// every prefix run; a period is only accepted once every background transfer has finished before
// the window that shows it, since traffic still running could end later and change the spacing.
// Tests check the extrapolated makespan against the full DAG on every ring collective, with and
// without background traffic (tests/models/collectives/step_period_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/collectives/transfer_dag.hpp"
#include "sim/time.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

// The first steps of a stepped collective: its DAG and each transfer's step.
struct StepDag {
  TransferDag dag;
  std::vector<std::uint32_t> step;  // per transfer of dag
};

// Builds the first `steps` steps (the whole collective when steps is its step count).
using StepDagBuilder = std::function<StepDag(int steps)>;

// A model of the collective's first `steps` steps, in seconds (the ring's lattice,
// alpha_beta.hpp's ring_steps_seconds): what a prefix that shows no period is scaled by.
using StepModel = std::function<double(int steps)>;

struct StepPeriodRun {
  sim::SimTime makespan;    // of the whole collective
  int simulated_steps = 0;  // the prefix that was run (all steps when nothing was extrapolated)
  sim::SimTime period;      // the spacing extrapolated (zero when the whole ran or it was scaled)
  bool extrapolated = false;
  bool scaled = false;  // by the model, the prefix having shown no period within the budget
};

// The first prefix tried; each later one doubles it.
inline constexpr int kFirstPrefixSteps = 16;
// The most transfers a prefix may hold before a model, when given, finishes the estimate.
inline constexpr std::size_t kMaxPrefixTransfers = std::size_t{1} << 20;

// Runs `build`'s collective of `steps` steps (>= 1) as above, its flows routed as run_dag routes
// them. `background` (may be null or empty) runs beside every prefix from time zero.
//
// A ring whose hops differ (NVLink inside a node, the network between) and that runs on latency
// may show no period for a long while: a GPU's channels send at different instants, and two
// paths through its steps whose lengths grow at nearly the same rate take turns as the longest
// for about as many steps as the ring has ranks. Run whole, such a ring of 512 GPUs at 8 MiB is
// 4 million transfers. So where `model` is given and the next prefix would pass `max_transfers`
// transfers (with no background still running), the estimate is the last prefix's makespan
// times model(steps) / model(m): the model's growth over the remaining steps, at the ratio the
// simulated prefix has to the model. Measured against the whole DAG at 8 MiB on 4 to 16 nodes
// (tests/models/collectives/step_period_test.cpp): within 2% from a 16-step prefix, 0.5% from 64.
StepPeriodRun run_by_step_period(const topo::Topology& topology, topo::Router& router, const StepDagBuilder& build,
                                 int steps, std::uint64_t seed, int flows_per_connection,
                                 const TransferDag* background = nullptr, const StepModel* model = nullptr,
                                 std::size_t max_transfers = kMaxPrefixTransfers);

// A collective made of identical steps: how many, and how to build its first ones.
struct SteppedCollective {
  int steps = 0;
  StepDagBuilder build;
};

}  // namespace fathom::coll
