// Weight-streaming training on a wafer-scale cluster (Cerebras's execution mode for models larger
// than a wafer): the weights live in MemoryX, not on the systems. For every micro-batch each
// system runs the model one unit at a time (the input embedding, each transformer layer, the
// output layer): the unit's weights stream down from MemoryX through SwarmX to every system at
// once (a broadcast), the wafer computes the unit over its micro-batch with the activations kept
// in its SRAM, and in the backward pass the unit's weights stream down again while its gradients
// stream up, summed over the systems in SwarmX and over the micro-batches in MemoryX. After the
// last micro-batch, MemoryX runs the optimizer on each unit as its gradients arrive. The systems
// are data-parallel replicas only: no tensor or pipeline split.
//
// Time: one slot per unit and pass, in order (forward units, then backward units in reverse,
// micro-batch after micro-batch). Four resources work side by side, each on one slot at a time:
// the downward stream (weights), the wafer (compute), the upward stream (gradients) and MemoryX's
// update. A slot's weights may stream in while the wafer still computes the slot before (the
// SRAM holds two units' weights: double buffering), so
//   weights(i) start at max(weights(i-1) end, compute(i-2) end),
//   compute(i) starts at max(weights(i) end, compute(i-1) end),
//   gradients(i) start at max(compute(i) end, gradients(i-1) end),
//   update(i) starts at max(gradients(i) end, update(i-1) end),
// and a step ends when the last of them does (the first unit's update, which the next step's
// first weights wait for). The input workers stream the next step's samples meanwhile, so a step
// lasts at least their time: the step's tokens x input_bytes_per_token over the workers' rate. In the steady state a
// unit costs max(compute, weight stream, gradient stream, update): the step is compute-bound above the micro-batch at
// which a layer's forward compute equals its weight stream (the balance point), stream-bound below it.
//
// Stream times are swarmx_streams.hpp's closed form, which the tests hold equal to the flow
// model's run of the same transfers on the SwarmX tree. Compute is the transformer's FLOPs
// (models/workloads/training/layer_work.hpp: forward, backward twice the forward, and what
// recomputation redoes) at the system's dense peak times its efficiency.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/hardware/wafer_system.hpp"
#include "models/workloads/training/training_spec.hpp"
#include "models/workloads/training/transformer.hpp"
#include "sim/errors.hpp"

namespace fathom::wafer {

struct WaferCluster {
  int systems = 1;
  hw::WaferSystemSpec system;
  hw::MemoryXSpec memoryx;
  hw::SwarmXSpec swarmx;
  // The workers streaming the training data (0: not modelled; the data is taken to arrive in time).
  int input_workers = 0;
  hw::InputWorkerSpec input_worker;
};

struct WaferTrainingSpec {
  train::TransformerSpec model;
  int sequence = 2048;   // tokens per sample
  int global_batch = 0;  // samples per step, over every system
  int micro_batch = 0;   // samples a system runs through the model at once; 0: its whole batch
  train::Recompute recompute = train::Recompute::kNone;
  double tokens = 0;  // token budget for time to train (0: not asked)
  // Bytes per parameter: streamed down (weights) and up (gradients) in BF16; held in MemoryX
  // (mixed-precision Adam: 16-bit weights and gradients, 32-bit master weights, momentum and
  // variance: 2 + 2 + 12, as Rajbhandari et al. 2020, ZeRO, count them); read and written by the
  // update (the 16 bytes of state, both ways).
  double stream_bytes_per_parameter = 2;
  double gradient_bytes_per_parameter = 2;
  double state_bytes_per_parameter = 16;
  double update_bytes_per_parameter = 32;
  // What a token of training data weighs on its way from the input workers: three 32-bit arrays
  // a sample (input ids, attention mask, labels), as Cerebras Model Zoo's preprocessed data holds.
  double input_bytes_per_token = 12;

  int per_system_batch(int systems) const { return global_batch / systems; }
};

// The micro-batch a system runs: `spec.micro_batch`, or with 0 the largest divisor of the
// per-system batch whose activations fit the wafer beside the streamed weights and gradients (in
// a step the weights stream once a micro-batch, so the largest that fits is the fastest:
// Cerebras's `micro_batch_size: auto` searches for the fastest). 1 when not even one sample fits
// (first_violation then says so).
int micro_batch_of(const WaferTrainingSpec& spec, const WaferCluster& cluster);

// Bounds that keep a step's work in proportion: far beyond any cluster built (2,048 CS-3s) and any
// batch split in use, so that a slip of the keyboard is an error rather than an hour of work.
inline constexpr int kMaxSystems = 1'000'000;
inline constexpr int kMaxMicroBatches = 100'000;

// The first rule the pair breaks, or nullopt: from one to kMaxSystems systems; at most
// kMaxMicroBatches micro-batches; a global batch that the
// systems divide, a micro-batch that divides the per-system batch; the figures the model needs
// (the system's dense peak and efficiency, the I/O, MemoryX's and SwarmX's rates) given; a
// fan-out of at least 2; and the model's own rules. Fields are spelled as the scenario's keys
// under `workload` and `cluster` ("workload.micro_batch", "cluster.system.peak_dense").
std::optional<sim::SpecViolation> first_violation(const WaferTrainingSpec& spec, const WaferCluster& cluster);

// One unit of the model as the systems stream and compute it.
struct StreamUnit {
  std::string name;  // "embedding", "layer", "output"
  double parameters = 0;
  double forward_flops = 0;   // per token
  double backward_flops = 0;  // per token, recomputation included
};
// The embedding, the transformer layers (one entry each), the output layer with the final norm
// (streamed again with tied embeddings).
std::vector<StreamUnit> stream_units(const WaferTrainingSpec& spec);

// Where the memory goes, against what holds it.
struct WaferMemory {
  double memoryx_bytes = 0;  // every parameter's state
  double memoryx_capacity = 0;
  double activation_bytes = 0;       // one micro-batch's activations over every layer, on one wafer
  double weight_buffer_bytes = 0;    // two units' weights (double buffering), the largest unit's
  double gradient_buffer_bytes = 0;  // one unit's gradients on their way out
  double sram_bytes() const { return activation_bytes + weight_buffer_bytes + gradient_buffer_bytes; }
  double sram_capacity = 0;
  bool memoryx_fits() const { return memoryx_bytes <= memoryx_capacity; }
  bool sram_fits() const { return sram_bytes() <= sram_capacity; }
};
WaferMemory wafer_memory(const WaferTrainingSpec& spec, const WaferCluster& cluster);

struct WaferStep {
  double step_s = 0;
  // Each resource's busy time over the step, and the step's figures.
  double compute_s = 0;
  double weight_stream_s = 0;
  double gradient_stream_s = 0;
  double update_s = 0;
  double input_s = 0;  // the input workers streaming the step's samples (0 without workers)
  // One transformer layer, one micro-batch: what sets the balance.
  double layer_forward_compute_s = 0;
  double layer_backward_compute_s = 0;
  double layer_weight_stream_s = 0;
  double layer_gradient_stream_s = 0;
  double layer_update_s = 0;
  // The micro-batch (samples) at which a layer's forward compute equals its weight stream.
  double balance_micro_batch = 0;
  int per_system_batch = 0;
  int micro_batch = 0;
  int micro_batches = 0;
  int swarmx_levels = 0;
  int swarmx_nodes = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;  // 6 x active parameters x tokens plus attention (Megatron's count)
  double utilization = 0;           // model FLOP/s over the systems' dense peak
  double time_to_train_s = 0;       // spec.tokens over tokens_per_s (0 when not asked)
  double power_w = 0;               // systems, MemoryX, SwarmX nodes and input workers at full load
  WaferMemory memory;
};

// The step of `spec` on `cluster`. Throws sim::SpecError for first_violation().
WaferStep weight_streaming_step(const WaferTrainingSpec& spec, const WaferCluster& cluster);

}  // namespace fathom::wafer
