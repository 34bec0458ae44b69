// Serving on wafers: the model's weights resident in the SRAM of as many wafers as they need,
// its layers pipelined across them (each wafer a pipeline stage: serving.pp) or each layer split
// across them (tensor parallel: serving.tp), requests batched as any serving engine batches them. fathom runs it
// through the inference model (models/workloads/inference/, docs/inference.md) with a wafer seen as one accelerator:
// SRAM for HBM, its dense peak and SRAM bandwidth at the scenario's efficiencies, no kernel launches, and the systems'
// I/O as the links between pipeline stages. docs/wafer.md, "Serving".
#pragma once

#include <optional>

#include "models/hardware/accelerator.hpp"
#include "models/hardware/wafer_system.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "models/workloads/training/transformer.hpp"
#include "sim/errors.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::wafer {

// A wafer as the inference model's accelerator. BF16 only (no FP8 peak is published); the dense
// peak at compute_efficiency for GEMMs and attention, the SRAM at sram_efficiency for every read;
// no runtime reserve and no per-kernel overhead (a wafer runs the layer as one dataflow program:
// neither is public, and fathom takes them at 0).
hw::AcceleratorSpec as_accelerator(const hw::WaferSystemSpec& system);

// The systems as the inference model's cluster, in groups of `group` systems: a group is one
// "node" whose wafers reach each other through one switch at their I/O rate (the NVLink plane of a
// GPU node: a replica's tensor-parallel all-reduces run on it), and every system also has one link
// of its I/O rate to a switch joining the groups (consecutive pipeline stages send their
// activations over it). Every hop takes `hop_latency_ns`. The two share one physical I/O, which
// the model does not split: a replica uses one or the other between any two of its wafers.
// `group` must divide `systems`.
topo::ClusterSpec serving_cluster(int systems, int group, const hw::WaferSystemSpec& system,
                                  std::int64_t hop_latency_ns);

// The first rule a wafer breaks for serving, or nullopt: the dense peak and both efficiencies
// given (the figures Cerebras does not publish), an I/O rate. Fields as the scenario's keys
// ("cluster.system.sram_efficiency").
std::optional<sim::SpecViolation> serving_violation(const hw::WaferSystemSpec& system);

// The fewest pipeline stages, from 1 up to the model's layers, whose wafers (serving.tp each) hold
// the model's weights with room for a KV cache under `serving` (its pp replaced): the pipeline
// depth a replica takes when the scenario gives none. The layers when even that does not fit.
int fewest_wafers(const infer::ServingSpec& serving, const train::TransformerSpec& model,
                  const hw::AcceleratorSpec& wafer);

}  // namespace fathom::wafer
