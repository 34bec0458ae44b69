#include "models/workloads/wafer/weight_streaming.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/params/parameter_text.hpp"
#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/memory.hpp"
#include "models/workloads/wafer/swarmx_streams.hpp"
#include "topologies/swarmx_tree.hpp"

namespace fathom::wafer {

namespace {

std::string gigabytes(double bytes) { return params::number_text(bytes / 1e9) + " GB"; }

// The transformer spec the training model's memory counts read: one system, no model split.
train::TrainingSpec as_training(const WaferTrainingSpec& spec, int micro_batch, train::Recompute recompute) {
  train::TrainingSpec t;
  t.model = spec.model;
  t.sequence = spec.sequence;
  t.micro_batch = micro_batch;
  t.recompute = recompute;
  t.flash_attention = true;
  t.parallel.sequence_parallel = false;
  return t;
}

// Activations one sample leaves on the wafer for the backward pass: every layer's, plus, with
// full recomputation, the one layer whose forward is redone at a time.
double activation_bytes_per_sample(const WaferTrainingSpec& spec) {
  double bytes = spec.model.layers * train::layer_activation_bytes(as_training(spec, 1, spec.recompute));
  if (spec.recompute == train::Recompute::kFull) {
    bytes += train::layer_activation_bytes(as_training(spec, 1, train::Recompute::kNone));
  }
  return bytes;
}

double largest_unit(const std::vector<StreamUnit>& units) {
  double largest = 0;
  for (const StreamUnit& u : units) largest = std::max(largest, u.parameters);
  return largest;
}

double seconds_of(double flops, const hw::WaferSystemSpec& system) {
  return flops / (system.peak_dense_flops * system.compute_efficiency);
}

}  // namespace

std::vector<StreamUnit> stream_units(const WaferTrainingSpec& spec) {
  const train::TransformerSpec& m = spec.model;
  const double layer_forward = train::layer_forward_flops_per_token(m, spec.sequence);
  double layer_recompute = 0;
  if (spec.recompute == train::Recompute::kFull) layer_recompute = layer_forward;
  if (spec.recompute == train::Recompute::kSelective) {
    layer_recompute = train::attention_core_flops_per_token(m, spec.sequence);
  }
  const double vocab_rows = static_cast<double>(m.vocab) * m.hidden;
  const double positions =
      m.position == train::PositionKind::kLearned ? static_cast<double>(m.max_sequence) * m.hidden : 0;
  std::vector<StreamUnit> units;
  units.push_back({"embedding", vocab_rows + positions, 0, 0});
  for (int l = 0; l < m.layers; ++l) {
    units.push_back({"layer", train::layer_parameter_count(m), layer_forward, 2 * layer_forward + layer_recompute});
  }
  const double logits = train::logits_forward_flops_per_token(m);
  units.push_back({"output", vocab_rows + train::final_norm_parameter_count(m), logits, 2 * logits});
  return units;
}

namespace {

// Two units' weights in flight (the largest unit's, double-buffered) and one unit's gradients.
double stream_buffer_bytes(const WaferTrainingSpec& spec) {
  const double largest = largest_unit(stream_units(spec));
  return largest * (2 * spec.stream_bytes_per_parameter + spec.gradient_bytes_per_parameter);
}

}  // namespace

int micro_batch_of(const WaferTrainingSpec& spec, const WaferCluster& cluster) {
  if (spec.micro_batch > 0) return spec.micro_batch;
  const int per_system = spec.per_system_batch(std::max(1, cluster.systems));
  const double room = cluster.system.sram_bytes - stream_buffer_bytes(spec);
  const double per_sample = activation_bytes_per_sample(spec);
  // The largest that fits, at most the per-system batch; then down to one that divides it.
  const double fits = per_sample > 0 ? std::floor(room / per_sample) : per_system;
  for (int m = static_cast<int>(std::min<double>(per_system, fits)); m > 1; --m) {
    if (per_system % m == 0) return m;
  }
  return 1;
}

WaferMemory wafer_memory(const WaferTrainingSpec& spec, const WaferCluster& cluster) {
  WaferMemory memory;
  memory.memoryx_bytes = train::parameter_count(spec.model) * spec.state_bytes_per_parameter;
  memory.memoryx_capacity = cluster.memoryx.capacity_bytes;
  memory.sram_capacity = cluster.system.sram_bytes;
  memory.activation_bytes = activation_bytes_per_sample(spec) * micro_batch_of(spec, cluster);
  const double largest = largest_unit(stream_units(spec));
  memory.weight_buffer_bytes = 2 * largest * spec.stream_bytes_per_parameter;
  memory.gradient_buffer_bytes = largest * spec.gradient_bytes_per_parameter;
  return memory;
}

std::optional<sim::SpecViolation> first_violation(const WaferTrainingSpec& spec, const WaferCluster& cluster) {
  using V = sim::SpecViolation;
  if (cluster.systems < 1 || cluster.systems > kMaxSystems) {
    return V{"cluster.systems", "from 1 to " + std::to_string(kMaxSystems) + " systems",
             std::to_string(cluster.systems)};
  }
  if (auto v = train::first_violation(spec.model)) {
    v->field = "workload.model." + v->field;
    return v;
  }
  if (train::has_mixed_layers(spec.model)) {
    return V{"workload.model", "a model whose layers are all alike (a unit's stream and compute are one layer's)",
             "\"" + spec.model.name + "\", whose MoE and dense layers differ",
             "fathom serves such a model on wafers (workload kind: inference) but does not train it"};
  }
  if (spec.sequence < 1) return V{"workload.sequence", "at least 1 token", std::to_string(spec.sequence)};
  if (spec.global_batch < 1 || spec.global_batch % cluster.systems != 0) {
    return V{"workload.global_batch",
             "a multiple of the " + std::to_string(cluster.systems) + " systems (every system runs an equal share)",
             std::to_string(spec.global_batch)};
  }
  const int per_system = spec.per_system_batch(cluster.systems);
  if (spec.micro_batch < 0 || (spec.micro_batch > 0 && per_system % spec.micro_batch != 0)) {
    return V{"workload.micro_batch", "a divisor of the per-system batch of " + std::to_string(per_system) + " samples",
             std::to_string(spec.micro_batch)};
  }
  if (per_system / micro_batch_of(spec, cluster) > kMaxMicroBatches) {
    return V{"workload.micro_batch",
             "at most " + std::to_string(kMaxMicroBatches) + " micro-batches a step (the per-system batch of " +
                 std::to_string(per_system) + " over the micro-batch)",
             std::to_string(spec.micro_batch)};
  }
  const hw::WaferSystemSpec& s = cluster.system;
  const std::string not_public = "; the catalog entry has none, so the scenario must supply it";
  if (!(s.peak_dense_flops > 0)) {
    return V{"cluster.system.peak_dense", "the system's dense FP16/BF16 FLOP rate", "0",
             "no dense figure is published for " + s.name + not_public + " (docs/wafer.md)"};
  }
  if (!(s.compute_efficiency > 0) || s.compute_efficiency > 1) {
    return V{"cluster.system.compute_efficiency", "a share of peak_dense above 0 and at most 1",
             params::number_text(s.compute_efficiency), "the share a layer reaches is not published" + not_public};
  }
  if (!(s.io_bytes_per_s > 0)) return V{"cluster.system.io_bandwidth", "a positive rate", "0"};
  if (!(cluster.memoryx.bytes_per_s > 0)) return V{"cluster.memoryx.bandwidth", "a positive rate", "0"};
  if (!(cluster.memoryx.update_bytes_per_s > 0)) return V{"cluster.memoryx.update_bandwidth", "a positive rate", "0"};
  if (cluster.swarmx.fan_out < 2) {
    return V{"cluster.swarmx.fan_out", "at least 2 children a node", std::to_string(cluster.swarmx.fan_out)};
  }
  if (!(cluster.swarmx.link_bytes_per_s > 0)) return V{"cluster.swarmx.link_bandwidth", "a positive rate", "0"};
  if (!(cluster.swarmx.chunk_bytes > 0)) return V{"cluster.swarmx.chunk", "a positive size", "0"};
  if (cluster.input_workers > 0 && !(cluster.input_worker.bytes_per_s > 0)) {
    return V{"cluster.input_worker.bandwidth", "what one input worker streams a second", "0",
             "no figure is published for " + cluster.input_worker.name + not_public + " (docs/wafer.md)"};
  }
  if (!(spec.input_bytes_per_token > 0)) {
    return V{"workload.input_bytes_per_token", "a positive size", params::number_text(spec.input_bytes_per_token)};
  }

  const WaferMemory memory = wafer_memory(spec, cluster);
  if (!memory.memoryx_fits()) {
    return V{"cluster.memoryx.capacity",
             "room for every parameter's weights and optimizer state: " +
                 params::number_text(train::parameter_count(spec.model) / 1e9) + " B parameters x " +
                 params::number_text(spec.state_bytes_per_parameter) + " bytes = " + gigabytes(memory.memoryx_bytes),
             gigabytes(memory.memoryx_capacity), "name a larger MemoryX (docs/wafer.md lists them)"};
  }
  if (!memory.sram_fits()) {
    const double per_sample = activation_bytes_per_sample(spec);
    const double room = memory.sram_capacity - memory.weight_buffer_bytes - memory.gradient_buffer_bytes;
    const int most = room > 0 ? static_cast<int>(std::floor(room / per_sample)) : 0;
    std::string hint = most > 0 ? "at most " + std::to_string(most) + " samples fit" : "not one sample fits";
    if (spec.recompute != train::Recompute::kFull) hint += "; recompute: full keeps only each layer's input";
    return V{"workload.micro_batch",
             "a micro-batch whose activations fit the wafer's " + gigabytes(memory.sram_capacity) + " of SRAM beside " +
                 gigabytes(memory.weight_buffer_bytes + memory.gradient_buffer_bytes) +
                 " of streamed weights and gradients",
             std::to_string(micro_batch_of(spec, cluster)) + " samples: " + gigabytes(memory.activation_bytes) +
                 " of activations",
             hint};
  }
  return std::nullopt;
}

WaferStep weight_streaming_step(const WaferTrainingSpec& spec, const WaferCluster& cluster) {
  if (auto v = first_violation(spec, cluster)) throw sim::SpecError(*v);
  const int n = cluster.systems;
  const std::vector<StreamUnit> units = stream_units(spec);
  WaferStep step;
  step.memory = wafer_memory(spec, cluster);
  step.per_system_batch = spec.per_system_batch(n);
  step.micro_batch = micro_batch_of(spec, cluster);
  step.micro_batches = step.per_system_batch / step.micro_batch;
  step.swarmx_levels = topo::swarmx_levels(n, cluster.swarmx.fan_out);
  step.swarmx_nodes = topo::swarmx_nodes(n, cluster.swarmx.fan_out);
  const double tokens_per_micro_batch = static_cast<double>(step.micro_batch) * spec.sequence;

  // Per unit: the streams' and the update's seconds, and the compute of one micro-batch.
  struct Times {
    double weights = 0, gradients = 0, update = 0, forward = 0, backward = 0;
  };
  std::vector<Times> times;
  for (const StreamUnit& u : units) {
    Times t;
    t.weights = broadcast_seconds(n, cluster.system, cluster.memoryx, cluster.swarmx,
                                  u.parameters * spec.stream_bytes_per_parameter);
    t.gradients = reduce_seconds(n, cluster.system, cluster.memoryx, cluster.swarmx,
                                 u.parameters * spec.gradient_bytes_per_parameter);
    t.update = u.parameters * spec.update_bytes_per_parameter / cluster.memoryx.update_bytes_per_s;
    t.forward = seconds_of(u.forward_flops * tokens_per_micro_batch, cluster.system);
    t.backward = seconds_of(u.backward_flops * tokens_per_micro_batch, cluster.system);
    times.push_back(t);
  }

  // The slots in order, each with its four resources' work; the recurrences of the header.
  double weights_end = 0, gradients_end = 0, update_end = 0;
  double compute_end = 0, compute_end_before = 0;  // slots i-1 and i-2
  const auto slot = [&](double weights, double compute, double gradients, double update) {
    const double weights_start = std::max(weights_end, compute_end_before);
    weights_end = weights_start + weights;
    const double compute_start = std::max(weights_end, compute_end);
    compute_end_before = compute_end;
    compute_end = compute_start + compute;
    if (gradients > 0) gradients_end = std::max(compute_end, gradients_end) + gradients;
    if (update > 0) update_end = std::max(gradients_end, update_end) + update;
    step.weight_stream_s += weights;
    step.compute_s += compute;
    step.gradient_stream_s += gradients;
    step.update_s += update;
  };
  for (int mb = 0; mb < step.micro_batches; ++mb) {
    const bool last = mb + 1 == step.micro_batches;
    for (std::size_t u = 0; u < units.size(); ++u) slot(times[u].weights, times[u].forward, 0, 0);
    for (std::size_t u = units.size(); u-- > 0;) {
      // The embedding's backward adds its rows' gradients: it needs no weights.
      const double weights = units[u].name == "embedding" ? 0 : times[u].weights;
      slot(weights, times[u].backward, times[u].gradients, last ? times[u].update : 0);
    }
  }
  step.tokens_per_step = static_cast<double>(spec.global_batch) * spec.sequence;
  if (cluster.input_workers > 0) {
    step.input_s =
        step.tokens_per_step * spec.input_bytes_per_token / (cluster.input_workers * cluster.input_worker.bytes_per_s);
  }
  step.step_s = std::max({compute_end, gradients_end, update_end, step.input_s});

  const Times& layer = times.at(1);
  step.layer_forward_compute_s = layer.forward;
  step.layer_backward_compute_s = layer.backward;
  step.layer_weight_stream_s = layer.weights;
  step.layer_gradient_stream_s = layer.gradients;
  step.layer_update_s = layer.update;
  step.balance_micro_batch = layer.forward > 0 ? layer.weights / layer.forward * step.micro_batch : 0;

  step.tokens_per_s = step.tokens_per_step / step.step_s;
  double forward_per_token = 0;
  for (const StreamUnit& u : units) forward_per_token += u.forward_flops;
  step.model_flops_per_step = 3 * forward_per_token * step.tokens_per_step;
  step.utilization = step.model_flops_per_step / step.step_s / (n * cluster.system.peak_dense_flops);
  step.time_to_train_s = spec.tokens > 0 ? spec.tokens / step.tokens_per_s : 0;
  step.power_w = n * cluster.system.power_w + cluster.memoryx.power_w + step.swarmx_nodes * cluster.swarmx.power_w +
                 cluster.input_workers * cluster.input_worker.power_w;
  return step;
}

}  // namespace fathom::wafer
