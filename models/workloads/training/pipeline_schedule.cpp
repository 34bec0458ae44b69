#include "models/workloads/training/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fathom::train {

std::vector<std::vector<PipelinePass>> one_f_one_b(int stages, int micro_batches) {
  if (stages < 1 || micro_batches < 1) throw std::invalid_argument("1F1B: needs stages >= 1 and micro-batches >= 1");
  std::vector<std::vector<PipelinePass>> schedule(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    auto& order = schedule[static_cast<std::size_t>(s)];
    const int warmup = std::min(stages - s - 1, micro_batches);
    int next_forward = 0;
    int next_backward = 0;
    for (int i = 0; i < warmup; ++i) order.push_back({true, next_forward++, 0});
    while (next_forward < micro_batches) {
      order.push_back({true, next_forward++, 0});
      order.push_back({false, next_backward++, 0});
    }
    while (next_backward < micro_batches) order.push_back({false, next_backward++, 0});
  }
  return schedule;
}

std::vector<std::vector<PipelinePass>> interleaved_one_f_one_b(int stages, int micro_batches, int chunks) {
  if (chunks == 1) return one_f_one_b(stages, micro_batches);
  if (stages < 2 || chunks < 1 || micro_batches < 1 || micro_batches % stages != 0) {
    throw std::invalid_argument("interleaved 1F1B: needs stages >= 2 and micro-batches a multiple of stages (" +
                                std::to_string(micro_batches) + " micro-batches on " + std::to_string(stages) +
                                " stages)");
  }
  const int total = micro_batches * chunks;
  const int group = stages * chunks;
  // The k-th forward (backward) pass of a stage: Megatron's mapping of k to a micro-batch and chunk.
  auto pass = [&](int k, bool forward) {
    const int in_group = k % group;
    const int chunk = forward ? in_group / stages : chunks - 1 - in_group / stages;
    return PipelinePass{forward, (k / group) * stages + k % stages, chunk};
  };
  std::vector<std::vector<PipelinePass>> schedule(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    auto& order = schedule[static_cast<std::size_t>(s)];
    const int warmup = std::min((stages - s - 1) * 2 + (chunks - 1) * stages, total);
    for (int k = 0; k < warmup; ++k) order.push_back(pass(k, true));
    for (int i = 0; i < total - warmup; ++i) {
      order.push_back(pass(warmup + i, true));
      order.push_back(pass(i, false));
    }
    for (int k = total - warmup; k < total; ++k) order.push_back(pass(k, false));
  }
  return schedule;
}

PipelineRun run_pipeline(const std::vector<std::vector<PipelinePass>>& schedule, const PipelineCosts& costs,
                         int chunks) {
  const int stages = static_cast<int>(schedule.size());
  const int virtual_stages = stages * chunks;
  int micro_batches = 0;
  for (const auto& order : schedule) {
    for (const auto& p : order) micro_batches = std::max(micro_batches, p.micro_batch + 1);
  }
  const sim::SimTime unknown = sim::SimTime::max();
  // finish[forward?0:1][virtual stage * micro_batches + micro-batch]
  std::vector<sim::SimTime> done[2];
  for (auto& d : done) d.assign(static_cast<std::size_t>(virtual_stages) * micro_batches, unknown);
  auto slot = [&](int vs, int mb) { return static_cast<std::size_t>(vs) * micro_batches + mb; };

  PipelineRun run;
  run.stages.resize(static_cast<std::size_t>(stages));
  run.finish.assign(static_cast<std::size_t>(stages), sim::SimTime{});
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::size_t remaining = 0;
  for (const auto& order : schedule) remaining += order.size();

  // When the input of `p` on stage s is available, or `unknown` if its producer has not run yet.
  auto input_ready = [&](int s, const PipelinePass& p) -> sim::SimTime {
    const int vs = p.chunk * stages + s;
    if (p.forward) {
      if (vs == 0) return sim::SimTime{};
      const int prev = vs - 1;
      const sim::SimTime t = done[0][slot(prev, p.micro_batch)];
      return t == unknown ? unknown : t + costs.send_forward[static_cast<std::size_t>(prev % stages)];
    }
    if (vs == virtual_stages - 1) return done[0][slot(vs, p.micro_batch)];
    const int next_vs = vs + 1;
    const sim::SimTime t = done[1][slot(next_vs, p.micro_batch)];
    return t == unknown ? unknown : t + costs.send_backward[static_cast<std::size_t>(next_vs % stages)];
  };

  while (remaining > 0) {
    bool progress = false;
    for (int s = 0; s < stages; ++s) {
      const auto su = static_cast<std::size_t>(s);
      while (next[su] < schedule[su].size()) {
        const PipelinePass& p = schedule[su][next[su]];
        const sim::SimTime ready = input_ready(s, p);
        if (ready == unknown) break;
        const sim::SimTime start = std::max(run.finish[su], ready);
        const auto cu = static_cast<std::size_t>(p.chunk);
        const sim::SimTime finish = start + (p.forward ? costs.forward[su][cu] : costs.backward[su][cu]);
        done[p.forward ? 0 : 1][slot(p.chunk * stages + s, p.micro_batch)] = finish;
        run.stages[su].push_back({p, start, finish, ready});
        run.finish[su] = finish;
        ++next[su];
        --remaining;
        progress = true;
      }
    }
    if (!progress) throw std::logic_error("pipeline schedule deadlocks");
  }
  run.makespan = *std::max_element(run.finish.begin(), run.finish.end());
  return run;
}

std::vector<int> peak_in_flight(const std::vector<std::vector<PipelinePass>>& schedule) {
  std::vector<int> peak;
  for (const auto& order : schedule) {
    int live = 0;
    int most = 0;
    for (const auto& p : order) {
      live += p.forward ? 1 : -1;
      most = std::max(most, live);
    }
    peak.push_back(most);
  }
  return peak;
}

}  // namespace fathom::train
