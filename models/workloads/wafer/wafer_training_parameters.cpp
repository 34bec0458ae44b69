#include "models/workloads/wafer/wafer_training_parameters.hpp"

#include <limits>

namespace fathom::wafer {

namespace {
using params::Quantity;
using P = params::Parameter<WaferTrainingSpec>;
constexpr double kNoMax = std::numeric_limits<double>::infinity();
constexpr std::string_view kRun = "none: the run is the scenario's";
constexpr std::string_view kZero = "mixed-precision Adam as Rajbhandari et al. 2020 (ZeRO) count it";
}  // namespace

const std::vector<P>& wafer_training_parameters() {
  static const std::vector<P> declared = {
      {"sequence", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, sequence), "tokens per sample",
       kRun},
      {"global_batch", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, global_batch),
       "samples per step over every system (required); a multiple of `cluster.systems`", kRun},
      {"micro_batch", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, micro_batch),
       "samples a system runs through the model at once (its weights stream once per micro-batch); a divisor of the "
       "per-system batch; 0: the largest divisor whose activations fit the wafer (the fastest, since every micro-batch "
       "streams the weights again)",
       "Cerebras's micro_batch_size: auto, which searches for the fastest"},
      {"recompute",
       Quantity::kChoice,
       [](const WaferTrainingSpec& t) {
         return t.recompute == train::Recompute::kNone ? 0.0 : t.recompute == train::Recompute::kSelective ? 1.0 : 2.0;
       },
       [](WaferTrainingSpec& t, double v) {
         t.recompute = v == 0   ? train::Recompute::kNone
                       : v == 1 ? train::Recompute::kSelective
                                : train::Recompute::kFull;
       },
       "activation recomputation on the wafer: keep everything; recompute the attention core; keep each layer's input "
       "and redo its forward in the backward pass (a larger micro-batch fits the SRAM)",
       "keep everything",
       {},
       "none selective full"},
      {"tokens", Quantity::kCount, FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, tokens),
       "token budget for time to train; 0: not asked", kRun},
      {"stream_bytes_per_parameter",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, stream_bytes_per_parameter),
       "bytes of each weight streamed from MemoryX to the systems",
       "BF16 weights",
       {},
       {},
       true,
       kNoMax},
      {"gradient_bytes_per_parameter", Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, gradient_bytes_per_parameter),
       "bytes of each gradient streamed from the systems to MemoryX", "BF16 gradients"},
      {"state_bytes_per_parameter",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, state_bytes_per_parameter),
       "bytes MemoryX holds per parameter: weights, gradients and the optimizer's state",
       kZero,
       {},
       {},
       true,
       kNoMax},
      {"update_bytes_per_parameter", Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, update_bytes_per_parameter),
       "bytes the optimizer reads and writes per parameter in MemoryX at each step",
       "the 16 bytes of state, read and written once"},
      {"input_bytes_per_token",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(WaferTrainingSpec, input_bytes_per_token),
       "bytes a token of training data takes from the input workers to the systems (with cluster.input_workers)",
       "three 32-bit arrays a sample (input ids, attention mask, labels), as Cerebras Model Zoo's preprocessed data "
       "holds",
       {},
       {},
       true,
       kNoMax},
  };
  return declared;
}

}  // namespace fathom::wafer
