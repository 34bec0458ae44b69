#include "models/workloads/training/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "models/compute/roofline.hpp"
#include "models/workloads/training/rank_mapping.hpp"
#include "models/workloads/training/sharded_parameters.hpp"
#include "models/workloads/training/step_comms.hpp"
#include "models/workloads/training/tp_overlap.hpp"
#include "sim/hash.hpp"

namespace fathom::train {

namespace {

// A pass's duration split by what the stream is doing.
struct PassParts {
  double compute = 0;
  double tp = 0;
  double cp = 0;
  double ep = 0;
  double dp = 0;  // ZeRO-3 parameter gathers and gradient scatters not hidden by compute
  double pp = 0;  // blocking pipeline sends and the received activation's reassembly
  double total() const { return compute + tp + cp + ep + dp + pp; }
  PassParts& operator+=(const PassParts& o) {
    compute += o.compute;
    tp += o.tp;
    cp += o.cp;
    ep += o.ep;
    dp += o.dp;
    pp += o.pp;
    return *this;
  }
  PassParts scaled(double k) const { return {compute * k, tp * k, cp * k, ep * k, dp * k, pp * k}; }
};

struct Groups {
  std::vector<topo::VertexId> tp;
  std::vector<topo::VertexId> ep;
  std::vector<FlowPair> cp_ring;   // every CP rank to the next, for every TP rank
  std::vector<topo::VertexId> cp;  // the CP group of TP rank 0 (all-gather CP)
};

class StepBuilder {
 public:
  StepBuilder(const TrainingSpec& spec, const hw::AcceleratorSpec& acc, const topo::ClusterSpec& cluster,
              const coll::CollectiveParams& params, std::uint64_t seed)
      : spec_(spec),
        acc_(acc),
        comms_(cluster, params, seed),
        ranks_(spec, comms_.topology()),
        layout_(pipeline_layout(spec)) {}

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

  const TrainingSpec& spec_;
  const hw::AcceleratorSpec& acc_;
  StepComms comms_;
  RankMapping ranks_;
  std::vector<int> layout_;  // transformer layers per virtual stage (pipeline_layout)
  Groups groups_;
  Coord replica_{};  // its (ep, dp) coordinates; the others are 0
  std::map<std::string, std::string> notes_;
};

double StepBuilder::note(std::string_view what, const coll::CollectiveTiming& t) {
  std::string key(what);
  if (!notes_.count(key)) notes_[key] = std::string(coll::to_string(t.algorithm)) + " (" + std::string(t.reason) + ")";
  return t.seconds;
}

PassParts StepBuilder::phase_parts(const Phase& phase, double attention_seconds) {
  PassParts parts;
  std::map<std::string_view, double> gemm_seconds;  // by kernel name, for tp_overlap
  for (const auto& k : phase.kernels) {
    const double seconds = compute::kernel_seconds(acc_, spec_.precision, k);
    parts.compute += seconds;
    if (k.kind == compute::KernelKind::kGemm) gemm_seconds[k.name] += seconds;
  }
  for (const auto& c : phase.comms) {
    switch (c.group) {
      case CommGroup::kTp: {
        const auto t = comms_.group(c.op, groups_.tp, c.bytes);
        const double seconds = note("tp " + std::string(coll::to_string(c.op)), t);
        const auto gemm = gemm_seconds.find(c.gemm);
        parts.tp += spec_.parallel.tp_overlap && gemm != gemm_seconds.end()
                        ? tp_overlap_exposed_seconds(seconds, gemm->second, spec_.parallel.tp)
                        : seconds;
        break;
      }
      case CommGroup::kEp: {
        const auto t = comms_.group(c.op, groups_.ep, c.bytes);
        parts.ep += note("ep " + std::string(coll::to_string(c.op)), t);
        break;
      }
      case CommGroup::kCp: {
        if (!c.overlaps_attention) {
          // All-gather CP: a collective of the CP group that the compute stream waits for.
          parts.cp += note("cp " + std::string(coll::to_string(c.op)), comms_.group(c.op, groups_.cp, c.bytes));
          break;
        }
        // One ring step of K/V blocks hides behind one block of attention (1/cp of it).
        const double step = comms_.pairs(groups_.cp_ring, c.bytes);
        parts.cp += std::max(0.0, step - attention_seconds / spec_.parallel.cp);
        break;
      }
    }
  }
  return parts;
}

std::pair<double, double> StepBuilder::zero3_passes(int stage, int chunk, double fwd_work, double bwd_work,
                                                    int dp_groups) {
  const ParallelSpec& par = spec_.parallel;
  const int p = par.pp;
  const int m = spec_.micro_batches();
  // Modules: the chunk's layers; its embedding or output layer travels with the first or last.
  const int layers = layout_[static_cast<std::size_t>(chunk * p + stage)];
  const int modules = std::max(layers, 1);
  const double layer_params = layers > 0 ? layer_parameters_per_rank(spec_) : 0.0;
  const double extra_params = chunk_parameters(stage, chunk) - layer_params * layers;
  // With full recomputation the recomputed forward gathers the module once more in backward.
  const int backward_gathers = spec_.recompute == Recompute::kFull ? 2 : 1;
  // Every (stage, chunk) pass runs m times a step; each stage stands for 1/p of the traffic.
  const double calls = static_cast<double>(m) / p;
  auto gather = [&](double params, double per_pass) {
    return params > 0 ? comms_.data_parallel(coll::Op::kAllGather, dp_groups, 2 * params, per_pass * calls) : 0.0;
  };
  auto scatter = [&](double params) {
    return params > 0 ? comms_.data_parallel(coll::Op::kReduceScatter, dp_groups, par.grad_reduce_bytes * params, calls)
                      : 0.0;
  };
  std::vector<ModuleCost> fwd(static_cast<std::size_t>(modules));
  std::vector<ModuleCost> bwd(static_cast<std::size_t>(modules));
  for (int i = 0; i < modules; ++i) {
    const bool with_extra = (stage == 0 && chunk == 0) ? i == 0 : i == modules - 1;
    const double params = layer_params + (with_extra ? extra_params : 0.0);
    auto& f = fwd[static_cast<std::size_t>(i)];
    auto& b = bwd[static_cast<std::size_t>(modules - 1 - i)];  // backward runs the modules in reverse
    f = {fwd_work / modules, gather(params, 1), 0};
    b = {bwd_work / modules, gather(params, backward_gathers) * backward_gathers, scatter(params)};
  }
  return {pass_seconds(fwd, par.zero_prefetch), pass_seconds(bwd, par.zero_prefetch)};
}

double attention_seconds(const Phase& phase, const hw::AcceleratorSpec& acc, hw::Precision p) {
  double s = 0;
  for (const auto& k : phase.kernels) {
    if (k.kind == compute::KernelKind::kAttention) s += compute::kernel_seconds(acc, p, k);
  }
  return s;
}

StepBuilder::ReplicaRun StepBuilder::run_replica(const std::vector<std::vector<PipelinePass>>& schedule,
                                                 int dp_groups) {
  const ParallelSpec& par = spec_.parallel;
  const int p = par.pp;
  const int v = par.virtual_stages;
  const int m = spec_.micro_batches();
  const bool has_dp = par.dp * par.cp > 1;
  // The replica's stage-0 groups stand for every stage's (same shape inside their nodes under
  // the default rank mapping).
  groups_ = Groups{};
  groups_.tp = ranks_.group(Dim::kTp, coord(0));
  groups_.ep = ranks_.group(Dim::kEp, coord(0));
  groups_.cp = ranks_.group(Dim::kCp, coord(0));
  for (int t = 0; t < par.tp && par.cp > 1; ++t) {
    Coord c = coord(0);
    c[static_cast<std::size_t>(Dim::kTp)] = t;
    const auto ring = ranks_.group(Dim::kCp, c);
    for (std::size_t i = 0; i < ring.size(); ++i) groups_.cp_ring.emplace_back(ring[i], ring[(i + 1) % ring.size()]);
  }

  // Per-layer and per-end work, timed once.
  const LayerWork layer = transformer_layer_work(spec_);
  const LayerWork embedding = embedding_work(spec_);
  const LayerWork output = output_layer_work(spec_);
  const double attn_fwd = attention_seconds(layer.forward, acc_, spec_.precision);
  const double attn_bwd = attention_seconds(layer.backward, acc_, spec_.precision);
  const PassParts layer_fwd = phase_parts(layer.forward, attn_fwd);
  PassParts layer_bwd = phase_parts(layer.backward, attn_bwd);
  layer_bwd += phase_parts(layer.recompute, attn_fwd);
  const PassParts emb_fwd = phase_parts(embedding.forward, 0);
  const PassParts emb_bwd = phase_parts(embedding.backward, 0);
  const PassParts out_fwd = phase_parts(output.forward, 0);
  const PassParts out_bwd = phase_parts(output.backward, 0);

  ReplicaRun run;
  PipelineCosts& costs = run.costs;
  auto& fwd_parts = run.fwd_parts;
  auto& bwd_parts = run.bwd_parts;
  fwd_parts.resize(static_cast<std::size_t>(p));
  bwd_parts.resize(static_cast<std::size_t>(p));
  // Pipeline sends: every TP (and CP) rank of a stage sends its 1/t share of the activation
  // to its peer on the next stage (Megatron's scatter-gather), all at once.
  const double activation =
      2.0 * spec_.micro_batch * (static_cast<double>(spec_.sequence) / par.cp) * spec_.model.hidden / par.tp;
  std::vector<double> send_seconds;  // from stage s to the next virtual stage (and back)
  for (int s = 0; s < p; ++s) {
    const int next = (s + 1) % p;
    double send = 0;
    if (p > 1 && (next != 0 || v > 1)) {
      std::vector<FlowPair> pairs;
      for (int t = 0; t < par.tp; ++t) {
        for (int x = 0; x < par.cp; ++x) {
          Coord a = coord(s), b = coord(next);
          a[static_cast<std::size_t>(Dim::kTp)] = b[static_cast<std::size_t>(Dim::kTp)] = t;
          a[static_cast<std::size_t>(Dim::kCp)] = b[static_cast<std::size_t>(Dim::kCp)] = x;
          pairs.emplace_back(ranks_.gpu(a), ranks_.gpu(b));
        }
      }
      send = comms_.pairs(pairs, activation);
      std::vector<FlowPair> back;
      for (const auto& [a, b] : pairs) back.emplace_back(b, a);
      comms_.record(pairs, activation * m * v);
      comms_.record(back, activation * m * v);
    }
    send_seconds.push_back(send);
  }
  // Megatron's 1F1B posts each send and waits for it (batched isend/irecv): the sender's stream
  // is busy for the transfer and the data is there when its pass ends. With overlap_p2p the
  // transfer runs beside the compute and delays only the receiver.
  for (int s = 0; s < p; ++s) {
    const double edge = par.overlap_p2p ? send_seconds[static_cast<std::size_t>(s)] : 0.0;
    costs.send_forward.push_back(sim::SimTime::from_seconds(edge));
    costs.send_backward.push_back(sim::SimTime::from_seconds(edge));
  }
  // Without sequence parallelism each TP rank sent 1/t of the activation; the receiver
  // all-gathers the whole (Megatron's scatter-gather optimisation).
  const double reassemble =
      par.tp > 1 && !par.sequence_parallel && p > 1
          ? note("pp reassembly all_gather", comms_.group(coll::Op::kAllGather, groups_.tp, activation * par.tp))
          : 0.0;
  // Pass durations per (stage, chunk).

  for (int s = 0; s < p; ++s) {
    for (int c = 0; c < v; ++c) {
      const double layers_here = layout_[static_cast<std::size_t>(c * p + s)];
      PassParts f = layer_fwd.scaled(layers_here);
      PassParts b = layer_bwd.scaled(layers_here);
      if (s == 0 && c == 0) {
        f += emb_fwd;
        b += emb_bwd;
      }
      if (s == p - 1 && c == v - 1) {
        f += out_fwd;
        b += out_bwd;
      }
      const int vs = c * p + s;
      if (vs < p * v - 1) {
        if (!par.overlap_p2p) f.pp += send_seconds[static_cast<std::size_t>(s)];
        b.pp += reassemble;  // the gradient from the next virtual stage
      }
      if (vs > 0) {
        if (!par.overlap_p2p) b.pp += send_seconds[static_cast<std::size_t>((s + p - 1) % p)];
        f.pp += reassemble;  // the activation from the previous virtual stage
      }
      if (par.zero_stage >= 3 && has_dp) {
        const auto [fwd_seconds, bwd_seconds] = zero3_passes(s, c, f.total(), b.total(), dp_groups);
        f.dp += fwd_seconds - f.total();
        b.dp += bwd_seconds - b.total();
      }
      fwd_parts[static_cast<std::size_t>(s)].push_back(f);
      bwd_parts[static_cast<std::size_t>(s)].push_back(b);
    }
    costs.forward.emplace_back();
    costs.backward.emplace_back();
    for (int c = 0; c < v; ++c) {
      costs.forward.back().push_back(
          sim::SimTime::from_seconds(fwd_parts[static_cast<std::size_t>(s)][static_cast<std::size_t>(c)].total()));
      costs.backward.back().push_back(
          sim::SimTime::from_seconds(bwd_parts[static_cast<std::size_t>(s)][static_cast<std::size_t>(c)].total()));
    }
  }
  run.pipeline = run_pipeline(schedule, costs, v);
  return run;
}

TrainingResult StepBuilder::run(bool every_replica) {
  const ParallelSpec& par = spec_.parallel;
  const int p = par.pp;
  const int v = par.virtual_stages;
  const int m = spec_.micro_batches();

  TrainingResult result;
  result.micro_batches = m;
  const auto schedule = par.schedule == Schedule::kInterleaved ? interleaved_one_f_one_b(p, m, v) : one_f_one_b(p, m);
  result.memory = memory_per_rank(spec_, acc_, schedule);
  result.flops = step_flops(spec_);
  if (!result.memory.fits) return result;
  result.simulated = true;

  // Data-parallel groups of every stage: they reduce at about the same time and share the fabric.
  // With context parallelism a group spans DP x CP (the CP ranks hold the same weights).
  std::vector<std::vector<topo::VertexId>> all_dp_groups;
  for (int s = 0; s < p; ++s) {
    for (int t = 0; t < par.tp; ++t) {
      Coord c{};
      c[static_cast<std::size_t>(Dim::kPp)] = s;
      c[static_cast<std::size_t>(Dim::kTp)] = t;
      all_dp_groups.push_back(ranks_.data_parallel_group(c));
    }
  }
  const int dp_groups = comms_.add_groups(std::move(all_dp_groups));
  const bool has_dp = par.dp * par.cp > 1;

  // Replica 0 stands for all (identical rank-mapping shapes); with every_replica each replica is
  // run and each stage takes the latest replica's timeline, since the data-parallel
  // collectives wait for every replica.
  replica_ = Coord{};
  ReplicaRun run = run_replica(schedule, dp_groups);
  if (every_replica) {
    for (int d = 0; d < ranks_.size(Dim::kDp); ++d) {
      for (int e = 0; e < ranks_.size(Dim::kEp); ++e) {
        if (d == 0 && e == 0) continue;
        replica_ = Coord{};
        replica_[static_cast<std::size_t>(Dim::kDp)] = d;
        replica_[static_cast<std::size_t>(Dim::kEp)] = e;
        ReplicaRun other = run_replica(schedule, dp_groups);
        for (int s = 0; s < p; ++s) {
          const auto su = static_cast<std::size_t>(s);
          if (other.pipeline.finish[su] > run.pipeline.finish[su]) {
            run.pipeline.stages[su] = other.pipeline.stages[su];
            run.pipeline.finish[su] = other.pipeline.finish[su];
            run.fwd_parts[su] = other.fwd_parts[su];
            run.bwd_parts[su] = other.bwd_parts[su];
          }
        }
        run.pipeline.makespan = std::max(run.pipeline.makespan, other.pipeline.makespan);
      }
    }
  }
  result.pipeline = run.pipeline;
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
  std::uint64_t fp = 0;
  for (int s = 0; s < p; ++s) {
    const auto su = static_cast<std::size_t>(s);
    StageResult stage;
    const auto& passes = result.pipeline.stages[su];
    stage.pipeline_finish = result.pipeline.finish[su];
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
    const double parts_sum = bd.compute + bd.tp + bd.cp + bd.ep + bd.dp + bd.pp;
    bd.compute += busy.to_seconds() - parts_sum;
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
      const double linear = layer_parameters_per_rank(spec_) - 2.0 * spec_.model.hidden;
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
      const double gather = comms_.data_parallel(coll::Op::kAllGather, dp_groups, 2 * local_params, 1.0 / p);
      const sim::SimTime g = sim::SimTime::from_seconds(gather);
      stage.dp_spans.push_back({end, end + g, 2 * local_params});
      if (!par.overlap_param_gather) {
        end = end + g;
        bd.dp += g.to_seconds();
      }
    }
    stage.finish = end;
    fp = sim::hash_combine(fp, static_cast<std::uint64_t>(end.ns()));
    result.stages.push_back(std::move(stage));
  }
  // The critical stage.
  for (int s = 0; s < p; ++s) {
    if (result.stages[static_cast<std::size_t>(s)].finish >
        result.stages[static_cast<std::size_t>(result.critical_stage)].finish) {
      result.critical_stage = s;
    }
  }
  const StageResult& crit = result.stages[static_cast<std::size_t>(result.critical_stage)];
  result.breakdown = crit.breakdown;
  result.step_seconds = crit.finish.to_seconds();
  result.fingerprint = sim::hash_combine(fp, static_cast<std::uint64_t>(crit.finish.ns()));

  const double gpus = spec_.gpus;
  result.model_tflops_per_gpu = result.flops.model / result.step_seconds / gpus / 1e12;
  result.hardware_tflops_per_gpu = result.flops.hardware / result.step_seconds / gpus / 1e12;
  const double peak = acc_.peak(spec_.precision) > 0 ? acc_.peak(spec_.precision) : acc_.peak(hw::Precision::kBf16);
  result.mfu = result.model_tflops_per_gpu * 1e12 / peak;
  const double tokens_per_step = static_cast<double>(spec_.global_batch) * spec_.sequence;
  result.tokens_per_s = tokens_per_step / result.step_seconds;
  if (spec_.tokens > 0) {
    result.time_to_train_s = spec_.tokens / result.tokens_per_s;
    result.gpu_hours = result.time_to_train_s * gpus / 3600.0;
  }

  // Link utilisation: the pipeline sends' and data-parallel collectives' bytes on their routes
  // (collectives inside a TP, CP or EP group are not counted on links).
  const topo::Topology& topology = comms_.topology();
  std::vector<double> bytes = comms_.link_bytes();
  for (const auto& [what, how] : notes_) result.collective_notes.push_back(what + ": " + how);
  for (topo::LinkId l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    const double cap = topology.link(l).bytes_per_s;
    // Only replica 0's pipeline sends were recorded: every replica sends the same.
    result.links.push_back({l, bytes[l], cap > 0 ? bytes[l] / (cap * result.step_seconds) : 0});
  }
  std::stable_sort(result.links.begin(), result.links.end(),
                   [](const LinkUse& a, const LinkUse& b) { return a.bytes > b.bytes; });
  return result;
}

}  // namespace

TrainingResult simulate_training_step(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                                      const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                                      std::uint64_t seed, const StepOptions& options) {
  check(spec);
  StepBuilder builder(spec, accelerator, cluster, params, seed);
  return builder.run(options.every_replica);
}

}  // namespace fathom::train
