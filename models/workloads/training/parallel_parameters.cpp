#include "models/workloads/training/parallel_parameters.hpp"

namespace fathom::train {

namespace {

using params::Quantity;
using P = params::Parameter<ParallelSpec>;

constexpr std::string_view kMegatron = "Megatron-LM's default (arguments.py)";
constexpr std::string_view kNone = "none: the strategy is the scenario's choice";

}  // namespace

const std::vector<P>& parallel_parameters() {
  static const std::vector<P> declared = {
      {"tp", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, tp),
       "tensor parallelism; divides the model's `heads` and `ffn_hidden`", kNone},
      {"pp", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, pp),
       "pipeline stages; at most the model's layers", kNone},
      {"cp", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, cp),
       "context parallelism (ring attention); divides `sequence`", kNone},
      {"cp_comm",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ParallelSpec, cp_comm, CpComm::kRing, CpComm::kAllGather),
       "how context parallelism exchanges K and V: ring attention hidden behind attention, or Llama 3's all-gather "
       "before attention (and reduce-scatter of their gradients)",
       "Megatron-LM's (Transformer Engine's ring)",
       {},
       "ring all_gather"},
      {"ep", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, ep),
       "expert parallelism, carved out of the data-parallel ranks: divides dp and, when above 1, the model's `experts` "
       "(a dense model takes only 1)",
       kNone},
      {"sequence_parallel", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, sequence_parallel),
       "TP with sequence parallelism (reduce-scatter and all-gather instead of all-reduce); without the key, true when "
       "tp > 1",
       "Megatron-LM's recommended setting with TP (Korthikanti et al. 2022)"},
      {"schedule",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ParallelSpec, schedule, Schedule::kOneFOneB, Schedule::kInterleaved),
       "PipeDream-Flush 1F1B, or Megatron's interleaved 1F1B; `interleaved` needs pp >= 2 and the micro-batches per "
       "replica per step (global_batch / (micro_batch x dp)) a multiple of pp; without the key, interleaved when "
       "virtual_stages > 1",
       kMegatron,
       {},
       "1f1b interleaved"},
      {"virtual_stages", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, virtual_stages),
       "model chunks per GPU; must be 1 with `1f1b` and at least 2 with `interleaved` (one chunk per stage is 1F1B); "
       "above 1 it implies `schedule: interleaved` unless the schedule is given; every chunk but the first and last "
       "needs a layer",
       kMegatron},
      {"zero", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, zero_stage),
       "ZeRO stage: 0 plain data parallelism; 1 optimizer state sharded over dp (Megatron's distributed optimizer); 2 "
       "gradients too; 3 weights too",
       "the distributed optimizer, as large Megatron-LM runs use it"},
      {"bucket",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(ParallelSpec, bucket_bytes),
       "gradient bucket (Megatron's 40M elements of 4 bytes); the same bytes whatever `grad_reduce`",
       "Megatron DDP: 40M FP32 elements",
       {},
       {},
       true},
      {"grad_reduce",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(ParallelSpec, grad_reduce_bytes, 4, 2),
       "bytes per gradient element reduced across replicas: 4 or 2",
       "Megatron-LM reduces FP32 main gradients by default (docs/training.md)",
       {},
       "fp32 bf16"},
      {"grad_accumulation",
       Quantity::kChoice,
       FATHOM_PARAMETER_MEMBER(ParallelSpec, grad_accumulation),
       "how each micro-batch's weight gradients are added into the gradient buffer: in the weight-gradient GEMM's "
       "epilogue; by a separate element-wise add after it into an FP32 buffer, after a cast to an FP32 temporary, or "
       "into a 16-bit buffer; or by PyTorch's own accumulation into 16-bit `.grad` (none for the first micro-batch, a "
       "16-bit add for each later one) ([training.md](training.md#gradient-accumulation))",
       "Megatron-LM's --gradient-accumulation-fusion, on by default since 2022",
       {},
       "fused fp32 fp32_cast bf16 autograd"},
      {"overlap_grad_reduce", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, overlap_grad_reduce),
       "reduce buckets during each chunk's last backward pass; `false`: after the pipeline",
       "Megatron-LM's --overlap-grad-reduce"},
      {"overlap_param_gather", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, overlap_param_gather),
       "ZeRO 1-2: the all-gather of updated parameters beside the next step's first forward (what that forward "
       "does not hide, and the SMs the gather takes, are exposed); `false`: all of it exposed at the end of the step",
       "Megatron-LM's --overlap-param-gather"},
      {"overlap_p2p", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, overlap_p2p),
       "pipeline sends beside compute, each taking 2 SMs from it while it runs (false: the sender waits, as "
       "Megatron's 1F1B)",
       kMegatron},
      {"tp_overlap", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, tp_overlap),
       "run sequence parallelism's all-gathers and reduce-scatters beside their GEMMs as Transformer Engine's "
       "userbuffers do (Megatron-LM's `--tp-comm-overlap`), each GEMM slowed by the SMs its collective holds "
       "([training.md](training.md#tensor-parallel-overlap)); needs tp > 1 with `sequence_parallel`",
       "Megatron-LM's --tp-comm-overlap is off by default"},
      {"zero_prefetch", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(ParallelSpec, zero_prefetch),
       "ZeRO-3: modules whose parameters are gathered ahead of the one computing (FSDP's prefetch); 0 gathers on "
       "demand. Each prefetched layer is held whole in memory",
       "FSDP's forward prefetch of 1"},
      {"embedding_in_split", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, embedding_in_split),
       "Megatron-LM's `account_for_embedding_in_pipeline_split`: the even split counts the input embedding as a layer, "
       "so the first virtual stage holds one transformer layer fewer. Not with `stage_layers` or `chunk_layers`",
       "Megatron-LM's account_for_embedding_in_pipeline_split, off by default"},
      {"loss_in_split", Quantity::kBool, FATHOM_PARAMETER_MEMBER(ParallelSpec, loss_in_split),
       "Megatron-LM's `account_for_loss_in_pipeline_split`: likewise the output layer and loss on the last virtual "
       "stage",
       "Megatron-LM's account_for_loss_in_pipeline_split, off by default"},
  };
  return declared;
}

}  // namespace fathom::train
