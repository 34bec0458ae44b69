// What fails, how often, and what the cluster does about it (docs/run.md).
//
// Each component class fails as a renewal process at the level of the run: with U units of the
// class under the run (GPUs, nodes or NICs) and a per-unit mean time between failures m, the
// run sees the class's interruptions m / U apart on average, exponentially (shape 1) or with
// Weibull spacing of the given shape. Classes are independent of one another.
//
// The default table is the Llama 3 405B pre-training run's (Llama Team, "The Llama 3 Herd of
// Models", arXiv 2407.21783, section 3.3.4 and Table 5): 419 unexpected interruptions and 47
// planned ones in a 54-day snapshot on 16,384 H100 GPUs in 2,048 eight-GPU servers with one
// 400 Gb/s NIC per GPU. Each class's per-unit MTBF is units x 54 days x 24 h / its count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/params/parameter.hpp"

namespace fathom::rel {

enum class Component { kGpu, kHbm, kNic, kFabric, kHost, kPower, kSoftware, kMaintenance };
inline constexpr int kComponents = 8;

// What a component's count is taken from: the run's GPUs, its nodes or its scale-out NICs.
enum class Unit { kGpu, kNode, kNic };

struct ComponentRate {
  Component component = Component::kGpu;
  Unit unit = Unit::kGpu;
  double mtbf_s = 0;           // per unit; 0: never fails
  double weibull_shape = 1.0;  // 1: exponential
  // A calendar (a maintenance window): the class comes every mtbf / units exactly, at a phase
  // each replication draws uniformly (the run starts anywhere in the calendar); the shape is unused.
  bool calendar = false;
  bool takes_node = false;  // the node leaves for repair and a spare must take its place
  bool planned = false;     // announced: the run checkpoints first and loses no work
  // This class's own detection (a crash the launcher sees at once, a hang only the watchdog
  // catches); -1: FailureSpec::detection_ns.
  std::int64_t detection_ns = -1;
  std::string source;  // where the default comes from
};

struct FailureSpec {
  std::vector<ComponentRate> components;  // one per Component, in its order
  std::int64_t detection_ns = 0;          // from the failure until the job is known to be down
  std::int64_t replace_ns = 0;            // a spare node swapped in and the job rescheduled on it
  std::int64_t restart_ns = 0;            // relaunch, communicator set-up and warm-up (reading the
                                          // checkpoint is the storage tier's, on top)
  std::int64_t resubmit_ns = 0;           // beyond max_restarts: the job queued again
  double repair_s = 0;                    // mean time a failed node is away (exponential)
  int spares = -1;                        // spare nodes; -1: the cluster's nodes the run leaves idle
  int max_restarts = 3;                   // in-place restarts before the job is resubmitted

  const ComponentRate& rate(Component c) const { return components[static_cast<std::size_t>(c)]; }
  ComponentRate& rate(Component c) { return components[static_cast<std::size_t>(c)]; }
};

std::string_view component_name(Component c);
std::string_view unit_name(Unit u);

// The Llama 3 table with the default detection, restart, repair and restart policy.
FailureSpec default_failures();
// A spec in which nothing fails (`failures: none`).
FailureSpec no_failures();

// The declared scalar keys of `failures:` (docs/parameters.md), beside `components`.
const std::vector<params::Parameter<FailureSpec>>& failure_parameters();
// The declared keys of one entry under `failures.components`.
const std::vector<params::Parameter<ComponentRate>>& component_parameters();

}  // namespace fathom::rel
