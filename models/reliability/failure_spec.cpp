#include "models/reliability/failure_spec.hpp"

namespace fathom::rel {

namespace {

// Llama 3's 54-day snapshot (arXiv 2407.21783, Table 5): per-unit MTBF = units x 1,296 h / count.
constexpr double kSnapshotHours = 54 * 24;
constexpr double kGpus = 16'384, kNodes = 2'048, kNics = 16'384;  // one 400G NIC per GPU
constexpr std::string_view kTable = "Llama 3 405B pre-training, 54 days on 16,384 H100 (arXiv 2407.21783, Table 5): ";

ComponentRate row(Component c, Unit unit, double units, int count, bool takes_node, std::string rows) {
  ComponentRate r;
  r.component = c;
  r.unit = unit;
  r.mtbf_s = units * kSnapshotHours * 3600.0 / count;
  r.takes_node = takes_node;
  r.planned = c == Component::kMaintenance;
  r.source = std::string(kTable) + rows;
  return r;
}

}  // namespace

std::string_view component_name(Component c) {
  switch (c) {
    case Component::kGpu:
      return "gpu";
    case Component::kHbm:
      return "hbm";
    case Component::kNic:
      return "nic";
    case Component::kFabric:
      return "fabric";
    case Component::kHost:
      return "host";
    case Component::kPower:
      return "power";
    case Component::kSoftware:
      return "software";
    case Component::kMaintenance:
      return "maintenance";
  }
  return "?";
}

std::string_view unit_name(Unit u) {
  switch (u) {
    case Unit::kGpu:
      return "gpu";
    case Unit::kNode:
      return "node";
    case Unit::kNic:
      return "nic";
  }
  return "?";
}

FailureSpec default_failures() {
  FailureSpec f;
  f.components = {
      row(Component::kGpu, Unit::kGpu, kGpus, 196, true,
          "faulty GPU 148, GPU SRAM 19, GPU system processor 17, silent data corruption 6, thermal interface and "
          "sensor 6"),
      row(Component::kHbm, Unit::kGpu, kGpus, 72, true, "GPU HBM3 memory 72"),
      row(Component::kNic, Unit::kNic, kNics, 7, true, "NIC 7"),
      row(Component::kFabric, Unit::kNic, kNics, 35, false,
          "network switch and cable 35, counted per scale-out NIC port (the study gives no switch count)"),
      row(Component::kHost, Unit::kNode, kNodes, 43, true,
          "unplanned host maintenance 32, SSD 3, server chassis 2, IO expansion board 2, CPU 2, system memory 2"),
      row(Component::kPower, Unit::kNode, kNodes, 3, true, "power supply 3"),
      row(Component::kSoftware, Unit::kGpu, kGpus, 63, false,
          "software bug 54, NCCL watchdog timeouts 7, dependency 2"),
      row(Component::kMaintenance, Unit::kNode, kNodes, 47, false,
          "47 planned interruptions (automated maintenance: firmware upgrades, configuration or dataset updates)"),
  };
  f.detection_ns = std::int64_t{10} * 60 * 1'000'000'000;
  f.replace_ns = std::int64_t{5} * 60 * 1'000'000'000;
  f.restart_ns = std::int64_t{10} * 60 * 1'000'000'000;
  f.resubmit_ns = 0;
  f.repair_s = 24 * 3600.0;
  f.spares = -1;
  f.max_restarts = 3;
  return f;
}

FailureSpec no_failures() {
  FailureSpec f = default_failures();
  for (ComponentRate& c : f.components) {
    c.mtbf_s = 0;
    c.source = "failures: none";
  }
  return f;
}

const std::vector<params::Parameter<FailureSpec>>& failure_parameters() {
  using params::Quantity;
  static const std::vector<params::Parameter<FailureSpec>> declared = {
      {"detection", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(FailureSpec, detection_ns),
       "from a failure until the job is known to be down (unplanned interruptions)",
       "PyTorch's NCCL watchdog timeout, 10 min (kProcessGroupNCCLDefaultTimeout, ProcessGroupNCCL.hpp; "
       "pytorch/pytorch#110947); MegaScale (arXiv 2402.15627, section 6.3): detection and diagnosis under 10 min"},
      {"replace", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(FailureSpec, replace_ns),
       "a spare node swapped in for a failed one and the job placed on it",
       "5 min: a vendor's automated node replacement, \"under 5 minutes\" (Crusoe AutoClusters; low confidence)"},
      {"restart", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(FailureSpec, restart_ns),
       "relaunch, communicator set-up and warm-up after an interruption (reading the checkpoint is the tier's, on "
       "top)",
       "10 min, inside Kokolis et al.'s restart overhead of 5-20 min on Meta's RSC clusters (arXiv 2410.21680); "
       "ByteRobust (arXiv 2509.16293): failover often over 10 min at 10,000 GPUs"},
      {"resubmit", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(FailureSpec, resubmit_ns),
       "a job that spent its max_restarts queued again before it restarts", "0: a cluster dedicated to the run"},
      {"repair", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(FailureSpec, repair_s),
       "mean time a failed node is away (exponential); a node is needed from repair only when no spare is free",
       "24 h: an assumption, no public figure for a GPU server's repair was found (set it from your support "
       "contract)"},
      {"spares", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(FailureSpec, spares),
       "spare nodes ready to replace failed ones; -1: the cluster's nodes the run does not use", "-1: the idle nodes"},
      {"max_restarts", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FailureSpec, max_restarts),
       "in-place restarts before the job is resubmitted (torchrun's --max-restarts; the restart count then resets)",
       "3: the deployment guides' maxRestartCount"},
  };
  return declared;
}

const std::vector<params::Parameter<ComponentRate>>& component_parameters() {
  using params::Quantity;
  static const std::vector<params::Parameter<ComponentRate>> declared = {
      {"mtbf", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ComponentRate, mtbf_s),
       "mean time between failures of one unit (one GPU, node or NIC); 0: never fails",
       "the default table (docs/run.md)"},
      {"shape",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(ComponentRate, weibull_shape),
       "Weibull shape of the time between the class's interruptions; 1: exponential",
       "1",
       {},
       {},
       true},
      {"unit",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(ComponentRate, unit),
       "what the MTBF is per, and what is counted under the run",
       "the default table",
       {},
       "gpu node nic"},
      {"calendar", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ComponentRate, calendar),
       "the class comes on a calendar, every mtbf / units exactly (planned maintenance windows), from a phase each "
       "replication draws uniformly; shape is then unused",
       "false: a renewal process of the given shape"},
      {"takes_node", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ComponentRate, takes_node),
       "the failed node leaves for repair and a spare takes its place", "the default table"},
  };
  return declared;
}

}  // namespace fathom::rel
