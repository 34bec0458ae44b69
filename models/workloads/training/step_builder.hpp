// The step model's builder, shared by its three files: what one pass costs and a replica's
// pipeline (step_passes.cpp), each stage's data-parallel and optimizer timeline
// (step_timeline.cpp), and the step's orchestration and metrics (step_model.cpp). Internal to
// models/workloads/training: step_model.hpp is the public face.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/collectives/collective_timer.hpp"
#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/pipeline_schedule.hpp"
#include "models/workloads/training/rank_mapping.hpp"
#include "models/workloads/training/step_comms.hpp"
#include "models/workloads/training/step_model.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::train::detail {

// A pass's duration split by what the stream is doing.
struct PassParts {
  double compute = 0;
  double tp = 0;
  double cp = 0;
  double ep = 0;
  double dp = 0;               // ZeRO-3 parameter gathers and gradient scatters not hidden by compute
  double pp = 0;               // blocking pipeline sends and the received activation's reassembly
  double straggler = 0;        // the compute's wait for the slowest rank (stragglers.hpp)
  KernelClassSeconds kernels;  // `compute` by kernel class
  double total() const { return compute + tp + cp + ep + dp + pp + straggler; }
  PassParts& operator+=(const PassParts& o) {
    compute += o.compute;
    tp += o.tp;
    cp += o.cp;
    ep += o.ep;
    dp += o.dp;
    pp += o.pp;
    straggler += o.straggler;
    kernels += o.kernels;
    return *this;
  }
  PassParts scaled(double k) const {
    return {compute * k, tp * k, cp * k, ep * k, dp * k, pp * k, straggler * k, kernels.scaled(k)};
  }
};

// Seconds in which the span [from, to) runs beside one of `passes`.
double seconds_beside(const std::vector<PassTiming>& passes, sim::SimTime from, sim::SimTime to);

// NCCL channels of one point-to-point send to a peer on another node: NCCL_NCHANNELS_PER_NET_PEER,
// default 2 (ncclTopoGetNchannels, src/graph/paths.cc). NCCL gives a peer over NVLink more; a
// pipeline peer inside the node is counted the same (a lower bound on what its send holds).
constexpr int kP2pChannelsPerPeer = 2;

struct Groups {
  std::vector<topo::VertexId> tp;
  std::vector<topo::VertexId> ep;
  std::vector<FlowPair> cp_ring;   // every CP rank to the next, for every TP rank
  std::vector<topo::VertexId> cp;  // the CP group of TP rank 0 (all-gather CP)
};

// The step of one training strategy on one cluster: costs every pass (step_passes.cpp), runs a
// replica's pipeline schedule, times each stage's data-parallel and optimizer tail
// (step_timeline.cpp) and derives the metrics (step_model.cpp).
class StepBuilder {
 public:
  // `comms`: the cluster's communication, fresh or from a CommsCache (begin_step() called).
  StepBuilder(const TrainingSpec& spec, const hw::AcceleratorSpec& acc, StepComms& comms)
      : spec_(spec),
        acc_(acc),
        comms_(comms),
        ranks_(spec, comms_.topology()),
        layout_(pipeline_layout(spec)),
        straggler_factor_(straggler_factor(
            spec.stragglers,
            static_cast<long long>(spec.parallel.tp) * spec.parallel.cp * spec.parallel.pp * spec.parallel.dp)) {}

  TrainingResult run(bool every_replica);

 private:
  PassParts phase_parts(const Phase& phase, double attention_seconds);
  double note(std::string_view what, const coll::CollectiveTiming& t);
  // Stage `stage` of the replica being simulated.
  Coord coord(int stage) const {
    Coord c = replica_;
    c[static_cast<std::size_t>(Dim::kPp)] = stage;
    return c;
  }

  double chunk_parameters(int stage, int chunk) const { return train::chunk_parameters(spec_, layout_, stage, chunk); }
  // How much longer compute takes beside a communication kernel of `channels` NCCL channels, each
  // holding one SM (one CTA): k / (S - k) of S SMs (tp_overlap_gemm_slowdown - 1); 0 when the SM
  // count is unknown or no channel runs.
  double comm_stretch(int channels) const;
  // The same beside a data-parallel collective of the `dp_groups` groups (NCCL's channels for
  // them: 2 per NIC their node ranks use, coll::tuner_group).
  double dp_stretch(int dp_groups) const;
  // ZeRO-3: the forward and backward pass of chunk `chunk` of stage `stage`, whose work alone
  // takes fwd_work and bwd_work seconds, with each module's parameters gathered and its
  // gradients scattered (sharded_parameters.hpp). Returns the two passes' durations.
  std::pair<double, double> zero3_passes(int stage, int chunk, double fwd_work, double bwd_work, int dp_groups);

  struct ReplicaRun {
    PipelineCosts costs;
    std::vector<std::vector<PassParts>> fwd_parts;  // [stage][chunk]
    std::vector<std::vector<PassParts>> bwd_parts;
    PipelineRun pipeline;
  };
  // Times every pass and pipeline send of the replica at `replica_` and runs its schedule.
  ReplicaRun run_replica(const std::vector<std::vector<PipelinePass>>& schedule, int dp_groups);
  // Stage `s` of the replica run: its breakdown (busy parts, pipeline-send waits, bubble), its
  // gradient buckets' data-parallel reduction, its optimizer step and its parameter gather
  // (step_timeline.cpp).
  StageResult stage_timeline(int s, const ReplicaRun& run, int dp_groups);

  const TrainingSpec& spec_;
  const hw::AcceleratorSpec& acc_;
  StepComms& comms_;
  RankMapping ranks_;
  std::vector<int> layout_;  // transformer layers per virtual stage (pipeline_layout)
  // What the step's compute takes against its nominal time, waiting for the slowest of the run's
  // ranks (straggler_factor over all of them: a pipeline runs at its slowest stage's pace and the
  // data-parallel reduction waits for the slowest replica, so every stage runs at the pace of the
  // slowest GPU).
  double straggler_factor_ = 1;
  Groups groups_;
  Coord replica_{};  // its (ep, dp) coordinates; the others are 0
  std::map<std::string, std::string> notes_;
};

}  // namespace fathom::train::detail
