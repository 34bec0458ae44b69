#include "models/workloads/training/step_bound.hpp"

#include <algorithm>
#include <vector>

#include "models/compute/roofline.hpp"
#include "models/workloads/training/layer_work.hpp"

namespace fathom::train {

namespace {

double kernel_seconds(const Phase& phase, const hw::AcceleratorSpec& acc, hw::Precision precision) {
  double s = 0;
  for (const auto& k : phase.kernels) s += compute::kernel_seconds(acc, precision, k);
  return s;
}

}  // namespace

double step_lower_bound_seconds(const TrainingSpec& spec, const hw::AcceleratorSpec& acc) {
  const int p = spec.parallel.pp;
  const int v = spec.parallel.virtual_stages;
  const int m = spec.micro_batches();
  const std::vector<int> layout = pipeline_layout(spec);
  const LayerWork layer = transformer_layer_work(spec);
  const LayerWork embedding = embedding_work(spec);
  const LayerWork output = output_layer_work(spec);
  // One micro-batch's forward and backward (with any recomputation) through one layer and the
  // two ends, kernels only: the step model times the same phases (step_passes.cpp).
  const double layer_pass = kernel_seconds(layer.forward, acc, spec.precision) +
                            kernel_seconds(layer.backward, acc, spec.precision) +
                            kernel_seconds(layer.recompute, acc, spec.precision);
  const double embedding_pass =
      kernel_seconds(embedding.forward, acc, spec.precision) + kernel_seconds(embedding.backward, acc, spec.precision);
  const double output_pass =
      kernel_seconds(output.forward, acc, spec.precision) + kernel_seconds(output.backward, acc, spec.precision);
  double busiest = 0;
  double chain = 0;  // one micro-batch through every virtual stage and back
  for (int s = 0; s < p; ++s) {
    double stage = 0;  // one micro-batch's passes of every chunk of stage s
    for (int c = 0; c < v; ++c) {
      double pass = layout[static_cast<std::size_t>(c * p + s)] * layer_pass;
      if (s == 0 && c == 0) pass += embedding_pass;
      if (s == p - 1 && c == v - 1) pass += output_pass;
      stage += pass;
    }
    busiest = std::max(busiest, stage * m);
    chain += stage;
  }
  return std::max(busiest, chain);
}

}  // namespace fathom::train
