#include "models/hardware/node_parameters.hpp"

namespace fathom::hw {

namespace {
using params::Quantity;
using topo::NodeSpec;
constexpr std::string_view kHgx = "an 8-GPU HGX/DGX H100 board (the catalog's nodes give each one's datasheet)";
constexpr std::string_view kAssumedLatency = "fathom's assumption: no vendor publishes it";
}  // namespace

const std::vector<params::Parameter<NodeSpec>>& node_parameters() {
  static const std::vector<params::Parameter<NodeSpec>> declared = {
      {"gpus", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(NodeSpec, gpus),
       "accelerators per node; 0 for plain hosts (fabric studies)", kHgx},
      {"nics", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(NodeSpec, nics),
       "scale-out NICs per node; GPU j uses NIC j·nics/gpus", kHgx},
      {"nic_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(NodeSpec, nic_bytes_per_s),
       "NIC line rate, per direction. The NIC and the first `fabric.links` entry are one wire: the NIC-leaf cables run "
       "at the slower of the two, and a mismatch is a `fathom: warning:` (and an entry in the JSON report's "
       "`cluster.warnings`). On a scenario that names a catalog node (`node: dgx-h100`), override it as `--set "
       "'cluster.node={base: dgx-h100, nic_bandwidth: 100Gbps}'` (`cluster.node.nic_bandwidth=` cannot go through the "
       "name)",
       "ConnectX-7 at 400 Gb/s"},
      {"nvlink_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(NodeSpec, nvlink_bytes_per_s),
       "per GPU, per direction, to the NVSwitch plane", "NVLink4: 18 links x 25 GB/s"},
      {"nvlink_latency", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(NodeSpec, nvlink_latency_ns),
       "GPU ↔ NVSwitch, one way", kAssumedLatency},
      {"nvswitches", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(NodeSpec, nvswitches),
       "NVSwitch chips per NVLink domain (counted; modelled as one plane); 0 for a switchless full mesh such as AMD's "
       "Infinity Fabric, still modelled as one plane at `nvlink_bandwidth` per GPU",
       kHgx},
      {"nvls", Quantity::kBool, FATHOM_PARAMETER_MEMBER(NodeSpec, nvls),
       "the NVSwitches reduce in-switch (NVLink SHARP)", "off unless the node's switch has it"},
      {"nvlink_domain_nodes", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(NodeSpec, nvlink_domain_nodes),
       "nodes sharing one NVLink domain (NVL72-style)", "one node per domain, as HGX boards are"},
      {"pcie_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(NodeSpec, pcie_bytes_per_s),
       "GPU ↔ NIC, per direction", "PCIe Gen5 x16, about 64 GB/s"},
      {"pcie_latency", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(NodeSpec, pcie_latency_ns), "GPU ↔ NIC, one way",
       kAssumedLatency},
      {"local_nvme", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(NodeSpec, local_nvme_bytes),
       "local NVMe capacity per node; reported in the JSON report's `cluster` section (storage tiers are not simulated "
       "yet)",
       "none unless the node has it"},
  };
  return declared;
}

}  // namespace fathom::hw
