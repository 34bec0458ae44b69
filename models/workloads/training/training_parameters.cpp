#include "models/workloads/training/training_parameters.hpp"

#include <limits>

namespace fathom::train {

namespace {

using params::Quantity;
using P = params::Parameter<TrainingSpec>;
constexpr double kNoMax = std::numeric_limits<double>::infinity();
constexpr std::string_view kRun = "none: the run is the scenario's";

}  // namespace

const std::vector<P>& training_parameters() {
  static const std::vector<P> declared = {
      {"gpus",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, gpus),
       "GPUs the run uses, the first ones in node order (without the key, every GPU of the cluster); at most "
       "`cluster.nodes` x `cluster.node.gpus`; a multiple of "
       "tp x pp x cp",
       kRun,
       {},
       {},
       false,
       kNoMax,
       true},
      {"sequence", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TrainingSpec, sequence),
       "tokens per sample (required); a multiple of `parallel.cp` (not checked against the model's `max_sequence`)",
       kRun},
      {"global_batch", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TrainingSpec, global_batch),
       "samples per step (required); a multiple of `micro_batch` x dp", kRun},
      {"micro_batch",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, micro_batch),
       "samples per micro-batch per data-parallel replica",
       "Megatron-LM's default",
       {},
       {},
       false,
       kNoMax,
       true},
      {"precision",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(TrainingSpec, precision, hw::Precision::kBf16, hw::Precision::kFp8),
       "GEMM precision; `fp8` runs GEMMs only at the FP8 peak (activations and weights stay 2-byte) and needs an "
       "accelerator with one (`fp8` on `a100-80gb-sxm` is an error)",
       "BF16 mixed precision, as most published runs",
       {},
       "bf16 fp8",
       false,
       kNoMax,
       true},
      {"fp8_params",
       Quantity::kBool,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, fp8_params),
       "with `precision: fp8`, the linear layers' weights are kept in FP8 only (1 byte and the 1-byte transpose the "
       "backward reads, no 16-bit copy) and the distributed optimizer gathers them in FP8 "
       "([training.md](training.md#memory-per-rank))",
       "Transformer Engine's fp8_model_init, off by default (NeMo's fp8_params, Megatron-LM's --fp8-param-gather)",
       {},
       {},
       false,
       kNoMax,
       true},
      {"stragglers.enabled",
       Quantity::kBool,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, stragglers.enabled),
       "the step's compute runs at the pace of its slowest rank: 1 + sigma e_n times the nominal, e_n the expected "
       "maximum of n standard normals over the run's n GPUs, sigma = sqrt(`speed_spread`^2 + `jitter`^2) "
       "([training.md](training.md#stragglers)); `false` for exact what-ifs at nominal speed",
       "every synchronous step waits for its slowest rank",
       {},
       {},
       false,
       kNoMax,
       true},
      {"stragglers.speed_spread",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, stragglers.speed_spread),
       "coefficient of variation of GPU speed across the cluster (each GPU's own pace, drawn once)",
       "Sinha et al., SC'22: 8% average variation across a cluster's GPUs, read as +-2.7 sigma: 1.5%",
       {},
       {},
       false,
       0.5,
       true},
      {"stragglers.jitter",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, stragglers.jitter),
       "coefficient of variation of one rank's step time from step to step, independent across ranks",
       "no published per-rank figure at hand: 0 unless measured",
       {},
       {},
       false,
       0.5,
       true},
      {"recompute",
       Quantity::kChoice,
       [](const TrainingSpec& t) {
         return t.recompute == Recompute::kNone ? 0.0 : t.recompute == Recompute::kSelective ? 1.0 : 2.0;
       },
       [](TrainingSpec& t, double v) {
         t.recompute = v == 0 ? Recompute::kNone : v == 1 ? Recompute::kSelective : Recompute::kFull;
       },
       "activation recomputation: keep everything; recompute the attention core (nothing with FlashAttention); keep "
       "each layer's input and recompute the layer",
       "Megatron-LM's recommended selective recomputation (Korthikanti et al. 2022)",
       {},
       "none selective full",
       false,
       kNoMax,
       true},
      {"flash_attention",
       Quantity::kBool,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, flash_attention),
       "fused attention (no s x s scores in memory); `false` is the unfused path (batched GEMMs, softmax, dropout)",
       "FlashAttention, the default of current frameworks",
       {},
       {},
       false,
       kNoMax,
       true},
      {"linear_bias",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, linear_bias),
       "biased linear layers (models with a GeLU MLP): the bias added and its gradient reduced inside the GEMMs, or "
       "as Megatron-LM's own layers ran on 2021 PyTorch: QKV's bias added by a kernel of its own after the GEMM, and "
       "each bias gradient a reduction of the layer's output gradient ([training.md](training.md#biases))",
       "cuBLASLt's bias epilogues, which Transformer Engine uses",
       {},
       "fused separate",
       false,
       kNoMax,
       true},
      {"tokens",
       Quantity::kCount,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, tokens),
       "token budget for time-to-train and GPU-hours; 0: not asked",
       kRun,
       {},
       {},
       false,
       kNoMax,
       true},
      {"memory_fraction",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(TrainingSpec, max_memory_fraction),
       "usable share of HBM; above 0",
       "all of it",
       {},
       {},
       true,
       kNoMax,
       true},
  };
  return declared;
}

}  // namespace fathom::train
