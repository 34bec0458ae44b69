// The training-step model: one optimizer step of a TrainingSpec on a cluster, simulated.
//
// 1. Every pipeline pass (forward or backward of one micro-batch through one stage's model
//    chunk) gets a duration: its kernels' roofline times plus the collectives that block the
//    compute stream (TP, EP, and the part of CP's ring exchange that attention does not hide),
//    each collective run over the flow-level network on the ranks the rank mapping gives it.
// 2. The pipeline schedule (1F1B or interleaved) is executed pass by pass with the pipeline
//    sends between stages (run_pipeline): its makespan holds the bubble.
// 3. Gradients are reduced across data-parallel replicas in buckets as the last micro-batch's
//    backward produces them (or after it, without overlap), all stages' groups sharing the
//    fabric; then the optimizer runs, and with ZeRO the updated parameters are gathered.
// Identical data-parallel replicas are simulated once (replica 0); the data-parallel
// collectives include every replica. The step time is the slowest stage's; its breakdown
// sums exactly to the step time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/comms_cache.hpp"
#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/memory.hpp"
#include "models/workloads/training/pipeline_schedule.hpp"
#include "models/workloads/training/training_spec.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/topology.hpp"

namespace fathom::train {

// Seconds per component; for a stage, they add up to its time to the end of the step.
// A step's compute split by the kind of kernel (docs/training.md, "The breakdown"): the GEMMs,
// attention, memory-bound kernels, and the FP8 cast-transpose kernels around FP8 GEMMs.
struct KernelClassSeconds {
  double gemm = 0;
  double attention = 0;
  double memory = 0;     // norms, activations, residuals, softmax, cross-entropy, ...
  double fp8_casts = 0;  // Transformer Engine's cast-transpose of FP8 GEMMs' operands
  double total() const { return gemm + attention + memory + fp8_casts; }
  KernelClassSeconds& operator+=(const KernelClassSeconds& o) {
    gemm += o.gemm;
    attention += o.attention;
    memory += o.memory;
    fp8_casts += o.fp8_casts;
    return *this;
  }
  KernelClassSeconds scaled(double k) const { return {gemm * k, attention * k, memory * k, fp8_casts * k}; }
};

struct StepBreakdown {
  double compute = 0;          // kernels, recomputation included
  double tp = 0;               // exposed tensor-parallel collectives
  double cp = 0;               // exposed context-parallel exchange
  double ep = 0;               // exposed expert-parallel all-to-all
  double pp = 0;               // waiting on pipeline sends
  double bubble = 0;           // pipeline fill and drain
  double dp = 0;               // exposed data-parallel gradient reduction and parameter gathering
  double optimizer = 0;        // the optimizer's update
  double straggler = 0;        // waiting for the slowest rank: compute beyond the nominal (stragglers.hpp)
  KernelClassSeconds kernels;  // `compute` by kernel class: sums to it
  double total() const { return compute + tp + cp + ep + pp + bubble + dp + optimizer + straggler; }
};

struct LinkUse {
  topo::LinkId link = 0;
  std::string name;  // the topology's name for it ("n1.gpu0->n1.nic0")
  topo::LinkClass cls = topo::LinkClass::kNvLink;
  double bytes = 0;        // per step
  double utilisation = 0;  // bytes / (capacity * step time)
};

struct DataParallelSpan {
  sim::SimTime start;
  sim::SimTime finish;
  double bytes = 0;  // per rank
};

struct StageResult {
  StepBreakdown breakdown;
  sim::SimTime pipeline_finish;
  sim::SimTime finish;                     // end of its share of the step
  std::vector<DataParallelSpan> dp_spans;  // gradient buckets, then parameter gathers
  // Seconds the passes lose to the SMs that overlapped buckets and parameter gathers hold
  // (step_timeline.cpp): part of the stage's exposed data-parallel time.
  double dp_contention = 0;
  // The same for overlapped pipeline sends (overlap_p2p): part of its pipeline time.
  double pp_contention = 0;
  // One pipeline send of the stage's activation to the next stage and of its gradient to the
  // previous one, where they run beside compute (overlap_p2p); 0 where the sender waits for it
  // (the time is then in its passes) or it has no such peer.
  sim::SimTime send_forward;
  sim::SimTime send_backward;
  sim::SimTime optimizer_start;
  sim::SimTime optimizer_finish;
};

struct TrainingResult {
  MemoryReport memory;
  bool simulated = false;  // false when the strategy does not fit in memory
  double step_seconds = 0;
  int critical_stage = 0;
  StepBreakdown breakdown;  // of the critical stage
  std::vector<StageResult> stages;
  PipelineRun pipeline;
  int micro_batches = 0;
  StepFlops flops;
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;
  double tokens_per_s = 0;
  double time_to_train_s = 0;  // 0 when no token budget
  double gpu_hours = 0;
  // The cluster the step ran on, as built (its description and warnings): filled whether or not
  // the strategy fits, so that a report needs no second build of the topology.
  topo::TopologySummary cluster;
  std::vector<LinkUse> links;                 // every link that carried bytes, busiest first
  std::vector<std::string> collective_notes;  // the algorithm chosen for each kind of call
  std::uint64_t fingerprint = 0;
};

struct StepOptions {
  // Simulate every data-parallel replica's pipeline instead of replica 0's alone (the test
  // that proves the symmetry uses it; the result is the same whenever replicas are alike).
  bool every_replica = false;
  // Where to find (and keep) the cluster's topology, routes and timed collectives across calls;
  // null: built for this step alone. The result is the same either way.
  CommsCache* cache = nullptr;
};

// What each rank holds at the peak of the step's pipeline schedule (memory.hpp), the figure
// simulate_training_step() checks before it simulates.
MemoryReport step_memory(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator);

// Throws std::invalid_argument for an inconsistent spec (check()).
TrainingResult simulate_training_step(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                                      const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                                      std::uint64_t seed, const StepOptions& options = {});

}  // namespace fathom::train
