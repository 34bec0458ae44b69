#include "models/workloads/training/step_model.hpp"

#include <algorithm>
#include <vector>

#include "models/workloads/training/step_builder.hpp"
#include "sim/hash.hpp"

namespace fathom::train {

namespace {

// Each stage's passes in the order the step's pipeline schedule runs them.
std::vector<std::vector<PipelinePass>> step_schedule(const TrainingSpec& spec) {
  const ParallelSpec& par = spec.parallel;
  return par.schedule == Schedule::kInterleaved
             ? interleaved_one_f_one_b(par.pp, spec.micro_batches(), par.virtual_stages)
             : one_f_one_b(par.pp, spec.micro_batches());
}

}  // namespace

namespace detail {

TrainingResult StepBuilder::run(bool every_replica) {
  const ParallelSpec& par = spec_.parallel;
  const int p = par.pp;
  const int m = spec_.micro_batches();

  TrainingResult result;
  result.micro_batches = m;
  const auto schedule = step_schedule(spec_);
  result.memory = memory_per_rank(spec_, acc_, schedule);
  result.flops = step_flops(spec_);
  result.cluster = comms_.topology().summary;
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

  std::uint64_t fp = 0;
  for (int s = 0; s < p; ++s) {
    result.stages.push_back(stage_timeline(s, run, dp_groups));
    fp = sim::hash_combine(fp, static_cast<std::uint64_t>(result.stages.back().finish.ns()));
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
    const topo::Link& link = topology.link(l);
    const double cap = link.bytes_per_s;
    // Only replica 0's pipeline sends were recorded: every replica sends the same.
    result.links.push_back({l, link.name, link.cls, bytes[l], cap > 0 ? bytes[l] / (cap * result.step_seconds) : 0});
  }
  std::stable_sort(result.links.begin(), result.links.end(),
                   [](const LinkUse& a, const LinkUse& b) { return a.bytes > b.bytes; });
  return result;
}

}  // namespace detail

MemoryReport step_memory(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator) {
  check(spec);
  return memory_per_rank(spec, accelerator, step_schedule(spec));
}

TrainingResult simulate_training_step(const TrainingSpec& spec, const hw::AcceleratorSpec& accelerator,
                                      const topo::ClusterSpec& cluster, const coll::CollectiveParams& params,
                                      std::uint64_t seed, const StepOptions& options) {
  check(spec);
  if (options.cache) {
    detail::StepBuilder builder(spec, accelerator, options.cache->acquire(cluster, params, seed));
    return builder.run(options.every_replica);
  }
  StepComms comms(cluster, params, seed);
  detail::StepBuilder builder(spec, accelerator, comms);
  return builder.run(options.every_replica);
}

}  // namespace fathom::train
