// Each pipeline stage's timeline after its last pass: the split of its time into busy parts,
// pipeline-send waits and bubble; its gradient buckets reduced across data parallelism (during
// the backward pass when overlapped); the optimizer step over its shard; the gather of the
// updated parameters (ZeRO 1-2); and what overlapped communication takes from the passes beside
// it (the SMs its NCCL channels hold).
#include <algorithm>
#include <cmath>

#include "models/compute/roofline.hpp"
#include "models/workloads/training/step_builder.hpp"
#include "models/workloads/training/tp_overlap.hpp"

namespace fathom::train::detail {

double seconds_beside(const std::vector<PassTiming>& passes, sim::SimTime from, sim::SimTime to) {
  double beside = 0;
  for (const auto& pt : passes) {
    const sim::SimTime a = std::max(from, pt.start), b = std::min(to, pt.finish);
    if (b > a) beside += (b - a).to_seconds();
  }
  return beside;
}

double StepBuilder::comm_stretch(int channels) const {
  return tp_overlap_gemm_slowdown(acc_.compute_units, channels) - 1;
}

double StepBuilder::dp_stretch(int dp_groups) const { return comm_stretch(comms_.data_parallel_channels(dp_groups)); }

StageResult StepBuilder::stage_timeline(int s, const ReplicaRun& run, int dp_groups) {
  const ParallelSpec& par = spec_.parallel;
  const int p = par.pp;
  const int v = par.virtual_stages;
  const bool has_dp = par.dp * par.cp > 1;
  const PipelineCosts& costs = run.costs;
  const auto& fwd_parts = run.fwd_parts;
  const auto& bwd_parts = run.bwd_parts;
  // Data-parallel reduction, optimizer, parameter gathering, per stage.
  const double grad_bytes = par.grad_reduce_bytes;
  const coll::Op grad_op = par.zero_stage >= 1 ? coll::Op::kReduceScatter : coll::Op::kAllReduce;
  // HBM bytes per parameter of Megatron's mixed-precision Adam step: the gradient norm for
  // clipping reads the FP32 gradient (4); fused Adam reads master weight, gradient and two
  // moments and writes back weight and moments (28); the FP32 master is copied to the BF16
  // weight (6); the gradient buffer is zeroed for the next step (4).
  const double optimizer_bytes_per_param = 42;
  const auto su = static_cast<std::size_t>(s);
  StageResult stage;
  const auto& passes = run.pipeline.stages[su];
  stage.pipeline_finish = run.pipeline.finish[su];
  stage.send_forward = costs.send_forward[su];
  stage.send_backward = costs.send_backward[su];
  // Busy parts and idle split into pipeline-send waits and bubble.
  StepBreakdown& bd = stage.breakdown;
  sim::SimTime prev{};
  sim::SimTime busy{};
  double pp_wait = 0;
  for (const auto& pt : passes) {
    const auto cu = static_cast<std::size_t>(pt.pass.chunk);
    const PassParts& parts = pt.pass.forward ? fwd_parts[su][cu] : bwd_parts[su][cu];
    bd.compute += parts.compute;
    bd.tp += parts.tp;
    bd.cp += parts.cp;
    bd.ep += parts.ep;
    bd.dp += parts.dp;
    bd.pp += parts.pp;
    bd.straggler += parts.straggler;
    bd.kernels += parts.kernels;
    busy += pt.finish - pt.start;
    if (pt.start > prev) {
      const int from = pt.pass.forward ? (s + p - 1) % p : (s + 1) % p;
      const bool crossed = pt.pass.forward ? (pt.pass.chunk * p + s) > 0 : (pt.pass.chunk * p + s) < p * v - 1;
      const sim::SimTime send = crossed ? (pt.pass.forward ? costs.send_forward[static_cast<std::size_t>(from)]
                                                           : costs.send_backward[static_cast<std::size_t>(from)])
                                        : sim::SimTime{};
      pp_wait += std::min(pt.start - prev, send).to_seconds();
    }
    prev = pt.finish;
  }
  // Round-off: the stage's busy time is the sum of whole-ns passes; make parts match it.
  const double parts_sum = bd.compute + bd.tp + bd.cp + bd.ep + bd.dp + bd.pp + bd.straggler;
  bd.compute += busy.to_seconds() - parts_sum;
  // The split by kernel class takes the same round-off, in proportion, so that it sums to compute.
  if (bd.kernels.total() > 0) bd.kernels = bd.kernels.scaled(bd.compute / bd.kernels.total());
  const double idle = (stage.pipeline_finish - busy).to_seconds();
  bd.pp += pp_wait;
  bd.bubble = idle - pp_wait;

  // Gradient buckets in backward order: the last chunk's gradients first, each chunk's
  // spread evenly over its final backward pass.
  sim::SimTime dp_free{};
  sim::SimTime end = stage.pipeline_finish;
  if (has_dp && par.zero_stage < 3) {
    for (int c = v - 1; c >= 0; --c) {
      // The chunk's last backward pass.
      const PassTiming* last = nullptr;
      for (const auto& pt : passes) {
        if (!pt.pass.forward && pt.pass.chunk == c) last = &pt;
      }
      const double params = chunk_parameters(s, c);
      const double bytes = params * grad_bytes;
      const int buckets = std::max(1, static_cast<int>(std::ceil(bytes / par.bucket_bytes)));
      for (int k = 0; k < buckets; ++k) {
        const double size = k + 1 < buckets ? par.bucket_bytes : bytes - par.bucket_bytes * (buckets - 1);
        sim::SimTime ready = stage.pipeline_finish;
        if (par.overlap_grad_reduce && last != nullptr) {
          const double frac = (par.bucket_bytes * k + size) / bytes;
          ready = last->start + sim::SimTime::from_seconds((last->finish - last->start).to_seconds() * frac);
        }
        const sim::SimTime start = std::max(ready, dp_free);
        const sim::SimTime dur = sim::SimTime::from_seconds(comms_.data_parallel(grad_op, dp_groups, size, 1.0 / p));
        dp_free = start + dur;
        stage.dp_spans.push_back({start, dp_free, size});
      }
    }
    end = std::max(end, dp_free);
    // Overlap is not free: while a bucket's NCCL kernel runs beside a pass, it holds one SM per
    // channel (one CTA each), and the pass's kernels run on the rest, S / (S - k) as long for the
    // time they share. The stretch delays the stage's end and everything after it (to first
    // order: the buckets' ready times move with the passes they follow).
    if (par.overlap_grad_reduce) {
      double beside = 0;  // seconds a bucket ran beside one of the stage's passes
      for (const auto& span : stage.dp_spans) beside += seconds_beside(passes, span.start, span.finish);
      stage.dp_contention = beside * dp_stretch(dp_groups);
      end = end + sim::SimTime::from_seconds(stage.dp_contention);
    }
  }
  bd.dp += (end - stage.pipeline_finish).to_seconds();
  // Optimizer over this rank's shard.
  double local_params = 0;
  for (int c = 0; c < v; ++c) local_params += chunk_parameters(s, c);
  const double shard = par.zero_stage >= 1 ? local_params / (par.dp * par.cp) : local_params;
  // FP8: the updated weights of the linear layers are cast to FP8 and transposed once a step
  // (Transformer Engine caches them across micro-batches): 2 bytes read, 1 + 1 written.
  double fp8_weight_bytes = 0;
  if (spec_.precision == hw::Precision::kFp8) {
    const double linear = layer_linear_parameters_per_rank(spec_);
    for (int c = 0; c < v; ++c) fp8_weight_bytes += 4 * linear * layout_[static_cast<std::size_t>(c * p + s)];
  }
  const compute::Kernel adam{"optimizer", compute::KernelKind::kMemory, 0,
                             shard * optimizer_bytes_per_param + fp8_weight_bytes};
  stage.optimizer_start = end;
  stage.optimizer_finish = end + sim::SimTime::from_seconds(compute::kernel_seconds(acc_, spec_.precision, adam));
  bd.optimizer = (stage.optimizer_finish - end).to_seconds();
  end = stage.optimizer_finish;
  // ZeRO 1-2: gather the updated BF16 parameters; hidden behind the next step's forward
  // when overlapped (Megatron's overlap_param_gather), exposed otherwise.
  if (has_dp && par.zero_stage >= 1 && par.zero_stage < 3) {
    double local_linear = 0;
    for (int c = 0; c < v; ++c) {
      local_linear += layer_linear_parameters_per_rank(spec_) * layout_[static_cast<std::size_t>(c * p + s)];
    }
    const double bytes = gathered_weight_bytes(spec_, local_params, local_linear);
    const double gather = comms_.data_parallel(coll::Op::kAllGather, dp_groups, bytes, 1.0 / p);
    const sim::SimTime g = sim::SimTime::from_seconds(gather);
    stage.dp_spans.push_back({end, end + g, bytes});
    if (!par.overlap_param_gather) {
      end = end + g;
      bd.dp += g.to_seconds();
    } else {
      // Overlapped, it runs at the start of the next step, chunk by chunk in forward order, beside
      // that step's passes, which are this step's (every stage starts a step together: the
      // gradient norm before the optimizer is reduced over all ranks). A chunk's first forward
      // pass cannot end before the chunk's parameters are there, and every pass beside the gather
      // loses SMs to its channels. What the next step waits is added here, as data-parallel time.
      sim::SimTime wait{};
      double gathered = 0;
      for (int c = 0; c < v && local_params > 0; ++c) {
        gathered += chunk_parameters(s, c);
        const sim::SimTime ready = sim::SimTime::from_seconds(gather * gathered / local_params);
        const auto first = std::find_if(passes.begin(), passes.end(),
                                        [c](const PassTiming& pt) { return pt.pass.forward && pt.pass.chunk == c; });
        if (first != passes.end() && ready > first->finish) wait = std::max(wait, ready - first->finish);
      }
      const double contention = seconds_beside(passes, sim::SimTime{}, g) * dp_stretch(dp_groups);
      stage.dp_contention += contention;
      const sim::SimTime exposed = wait + sim::SimTime::from_seconds(contention);
      end = end + exposed;
      bd.dp += exposed.to_seconds();
    }
  }
  // Pipeline sends beside compute (overlap_p2p): each send's kernel holds an SM per channel while
  // the stage's next passes run, as the buckets' do.
  if (p > 1 && par.overlap_p2p) {
    double beside = 0;
    for (const auto& pt : passes) {
      const int virtual_stage = pt.pass.chunk * p + s;
      const bool sends = pt.pass.forward ? virtual_stage < p * v - 1 : virtual_stage > 0;
      if (!sends) continue;
      const sim::SimTime send = pt.pass.forward ? stage.send_forward : stage.send_backward;
      beside += seconds_beside(passes, pt.finish, pt.finish + send);
    }
    stage.pp_contention = beside * comm_stretch(kP2pChannelsPerPeer);
    end = end + sim::SimTime::from_seconds(stage.pp_contention);
    bd.pp += stage.pp_contention;
  }
  stage.finish = end;
  return stage;
}

}  // namespace fathom::train::detail
