#include "models/hardware/wafer_parameters.hpp"

namespace fathom::hw {

namespace {
using params::Quantity;
constexpr std::string_view kEntry = "the catalog entry's source (scenarios/hardware/wafer.yaml)";
constexpr std::string_view kNotPublic = "0 where the vendor publishes no figure: the scenario must supply it";
}  // namespace

const std::vector<params::Parameter<WaferSystemSpec>>& wafer_system_parameters() {
  static const std::vector<params::Parameter<WaferSystemSpec>> declared = {
      {"sram", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, sram_bytes),
       "on-wafer SRAM: holds one micro-batch's activations and the layers' weights and gradients in flight", kEntry},
      {"sram_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, sram_bytes_per_s),
       "on-wafer memory bandwidth (reported; a layer on the wafer is timed by its FLOPs)", kEntry},
      {"fabric_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, fabric_bytes_per_s),
       "core-to-core fabric bandwidth on the wafer (reported)", kEntry},
      {"peak_dense", Quantity::kFlops, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, peak_dense_flops),
       "dense FP16/BF16 FLOP/s, without sparsity: what a layer is computed at", kNotPublic},
      {"peak_sparse", Quantity::kFlops, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, peak_sparse_flops),
       "the vendor's headline \"AI compute\", which counts sparsity: reported beside the dense figure, never used",
       kEntry},
      {"compute_efficiency", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, compute_efficiency),
       "share of peak_dense a transformer layer's forward and backward reach", kNotPublic},
      {"sram_efficiency", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, sram_efficiency),
       "share of sram_bandwidth a layer's reads of weights and KV cache reach (serving, where a token reads every "
       "weight)",
       kNotPublic},
      {"layer_latency", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, layer_latency_s),
       "serving: the time a token's activations take to cross the wafer's mesh through one transformer layer, "
       "beyond its compute and SRAM reads (docs/wafer.md, \"Serving\")",
       kNotPublic},
      {"io_bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, io_bytes_per_s),
       "the system's external I/O, per direction: its link to SwarmX", kEntry},
      {"power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(WaferSystemSpec, power_w), "the system's power at full load",
       kNotPublic},
  };
  return declared;
}

const std::vector<params::Parameter<MemoryXSpec>>& memoryx_parameters() {
  static const std::vector<params::Parameter<MemoryXSpec>> declared = {
      {"capacity",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(MemoryXSpec, capacity_bytes),
       "what it holds: every parameter's weights and optimizer state",
       kEntry,
       {},
       {},
       true},
      {"bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(MemoryXSpec, bytes_per_s),
       "what it streams to SwarmX (weights) and takes from it (gradients), per direction",
       kEntry,
       {},
       {},
       true},
      {"update_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(MemoryXSpec, update_bytes_per_s),
       "optimizer state it reads and writes a second while it updates the weights",
       kEntry,
       {},
       {},
       true},
      {"power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(MemoryXSpec, power_w), "its power at full load", kNotPublic},
  };
  return declared;
}

const std::vector<params::Parameter<SwarmXSpec>>& swarmx_parameters() {
  static const std::vector<params::Parameter<SwarmXSpec>> declared = {
      {"fan_out", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(SwarmXSpec, fan_out),
       "children of a tree node (systems, or nodes of the level below); at least 2", kEntry},
      {"link_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(SwarmXSpec, link_bytes_per_s),
       "between a SwarmX node and its parent, per direction",
       kEntry,
       {},
       {},
       true},
      {"hop_latency", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(SwarmXSpec, hop_latency_ns),
       "one link of the tree, one way", "fathom's assumption: no figure is public"},
      {"chunk",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(SwarmXSpec, chunk_bytes),
       "what a node forwards at once: streams pipeline through the tree in chunks this size",
       "fathom's assumption: no figure is public",
       {},
       {},
       true},
      {"power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(SwarmXSpec, power_w), "per SwarmX node, at full load",
       kNotPublic},
  };
  return declared;
}

const std::vector<params::Parameter<InputWorkerSpec>>& input_worker_parameters() {
  static const std::vector<params::Parameter<InputWorkerSpec>> declared = {
      {"bandwidth", Quantity::kBandwidth, FATHOM_PARAMETER_MEMBER(InputWorkerSpec, bytes_per_s),
       "what one worker streams to the systems (read, unpacked and sent)", kNotPublic},
      {"power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(InputWorkerSpec, power_w), "its power at full load",
       kNotPublic},
  };
  return declared;
}

}  // namespace fathom::hw
