// What one pass of the training step costs, kernel by kernel and collective by collective
// (with ZeRO-3's per-module gathers), and a replica's pipeline run over those costs.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/roofline.hpp"
#include "models/workloads/training/sharded_parameters.hpp"
#include "models/workloads/training/step_builder.hpp"
#include "models/workloads/training/tp_overlap.hpp"

namespace fathom::train::detail {

namespace {

double attention_seconds(const Phase& phase, const hw::AcceleratorSpec& acc, hw::Precision p) {
  double s = 0;
  for (const auto& k : phase.kernels) {
    if (k.kind == compute::KernelKind::kAttention) s += compute::kernel_seconds(acc, p, k);
  }
  return s;
}

}  // namespace

double StepBuilder::note(std::string_view what, const coll::CollectiveTiming& t) {
  std::string key(what);
  if (!notes_.count(key))
    notes_[key] = std::string(coll::to_string(t.algorithm)) + "/" + std::string(coll::to_string(t.protocol)) + " (" +
                  std::string(t.reason) + ")";
  return t.seconds;
}

PassParts StepBuilder::phase_parts(const Phase& phase, double attention_seconds) {
  PassParts parts;
  std::map<std::string_view, double> gemm_seconds;  // by kernel name, for tp_overlap
  for (const auto& k : phase.kernels) {
    const double seconds = compute::kernel_seconds(acc_, spec_.precision, k);
    parts.compute += seconds;
    switch (k.kind) {
      case compute::KernelKind::kGemm:
        gemm_seconds[k.name] += seconds;
        parts.kernels.gemm += seconds;
        break;
      case compute::KernelKind::kAttention:
        parts.kernels.attention += seconds;
        break;
      case compute::KernelKind::kMemory:
        (k.name == kFp8CastKernel ? parts.kernels.fp8_casts : parts.kernels.memory) += seconds;
        break;
    }
  }
  parts.straggler = parts.compute * (straggler_factor_ - 1);
  for (const auto& c : phase.comms) {
    switch (c.group) {
      case CommGroup::kTp: {
        const auto t = comms_.group(c.op, groups_.tp, c.bytes);
        const double seconds = note("tp " + std::string(coll::to_string(c.op)), t);
        const auto gemm = gemm_seconds.find(c.gemm);
        if (spec_.parallel.tp_overlap && gemm != gemm_seconds.end()) {
          const TpOverlapMethod method = tp_overlap_method(c.op, c.gemm, spec_.parallel.tp);
          parts.tp += tp_overlap_exposed_seconds(seconds, gemm->second, method.chunks,
                                                 tp_overlap_gemm_slowdown(acc_.compute_units, method.comm_sms));
        } else {
          parts.tp += seconds;
        }
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
  // A module's gather: the layer's linear weights in FP8 with fp8_params, the rest in BF16.
  const double layer_linear = layers > 0 ? layer_linear_parameters_per_rank(spec_) : 0.0;
  auto gather = [&](double params, double per_pass) {
    return params > 0 ? comms_.data_parallel(coll::Op::kAllGather, dp_groups,
                                             gathered_weight_bytes(spec_, params, layer_linear), per_pass * calls)
                      : 0.0;
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
  // The gathers and scatters beside a module's compute hold an SM per NCCL channel.
  const double stretch = dp_stretch(dp_groups);
  return {pass_seconds(fwd, par.zero_prefetch, stretch), pass_seconds(bwd, par.zero_prefetch, stretch)};
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
  // transfer runs beside the compute and delays only the receiver. A stage's backward send goes
  // to the previous stage, over the pair that carried the activation the other way.
  for (int s = 0; s < p; ++s) {
    auto edge = [&](int from) {
      return sim::SimTime::from_seconds(par.overlap_p2p ? send_seconds[static_cast<std::size_t>(from)] : 0.0);
    };
    costs.send_forward.push_back(edge(s));
    costs.send_backward.push_back(edge((s + p - 1) % p));
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

}  // namespace fathom::train::detail
