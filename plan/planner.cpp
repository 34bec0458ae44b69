#include "plan/planner.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "models/workloads/training/step_bound.hpp"
#include "plan/journal.hpp"
#include "plan/service_candidate.hpp"
#include "plan/wafer_candidate.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/input/text_file.hpp"

namespace fathom::plan {

namespace {

std::string gib_text(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  return buf;
}

// A loaded candidate, or why it could not be loaded.
struct Loaded {
  std::optional<scenario::Scenario> scenario;
  std::string error;
};

// `text`: the file's contents, read once for every candidate.
Loaded load_candidate(const std::string& file, std::string_view text, std::vector<std::string> overrides,
                      const std::vector<std::string>& assignments) {
  overrides.insert(overrides.end(), assignments.begin(), assignments.end());
  Loaded l;
  try {
    l.scenario = scenario::load_scenario_text(file, text, overrides);
  } catch (const std::exception& e) {
    l.error = e.what();
  }
  return l;
}

// A candidate's figures from the journal or another process into its slot, which keeps its values.
void adopt(Evaluated& slot, Evaluated from) {
  from.values = std::move(slot.values);
  slot = std::move(from);
}

// `prune`: discard by the step's lower bound before simulating (PlanOptions::prune_by_bound).
void evaluate(const scenario::Scenario& s, const scenario::PlanSpec& plan, bool prune, train::CommsCache& cache,
              Evaluated& e) {
  e.nodes = s.cluster.nodes;
  e.gpus = s.training.gpus;
  e.dp = s.training.parallel.dp;
  if (prune && plan.deadline_s && s.training.tokens > 0) {
    try {
      // Memory first, as the step model checks it: a strategy that does not fit says so.
      const train::MemoryReport memory = train::step_memory(s.training, s.accelerator);
      const double bound = train::step_lower_bound_seconds(s.training, s.accelerator);
      // As the step model reckons time to train, with the bound for the step.
      const double at_least =
          s.training.tokens / (static_cast<double>(s.training.global_batch) * s.training.sequence / bound);
      if (memory.fits && at_least > *plan.deadline_s) {
        e.peak_memory_bytes = memory.peak_bytes;
        e.status = Status::kBoundMissesDeadline;
        e.reason = "at least " + duration_days(at_least) + " to train (its kernels alone), deadline " +
                   duration_days(*plan.deadline_s) + ": not simulated";
        return;
      }
    } catch (const std::exception&) {
      // An inconsistent spec: the full evaluation below reports it.
    }
  }
  report::TrainingReport r;
  try {
    r = report::evaluate_training(s, {}, &cache);
  } catch (const std::exception& error) {
    e.status = Status::kInvalid;
    e.reason = error.what();
    return;
  }
  const train::TrainingResult& t = r.result;
  e.peak_memory_bytes = t.memory.peak_bytes;
  if (!r.fits()) {
    e.status = Status::kOutOfMemory;
    e.reason = gib_text(t.memory.peak_bytes) + " on stage " + std::to_string(t.memory.peak_stage) + " of " +
               gib_text(t.memory.capacity_bytes);
    return;
  }
  e.step_s = t.step_seconds;
  // With a whole run, its mean time to train through failures (report::training_figure).
  e.time_to_train_s = r.run && r.run->inputs.steps > 0 ? r.run->wall_s.mean : t.time_to_train_s;
  e.mfu = t.mfu;
  e.tokens_per_s = t.tokens_per_s;
  e.breakdown = t.breakdown;
  if (r.cost) record_cost(*r.cost, e);
  e.status = Status::kFeasible;
  apply_run_constraints(plan, e);
}

// An inference service's candidate, loaded by `load` with the replica count its search tries.
void evaluate_candidate(const std::string& file, std::string_view text, const std::vector<std::string>& overrides,
                        const std::vector<std::string>& assignments, const scenario::PlanSpec& plan, Evaluated& e) {
  evaluate_service(
      [&](std::optional<int> replicas, std::string& error) {
        std::vector<std::string> set = assignments;
        if (replicas) set.push_back("workload.serving.replicas=" + std::to_string(*replicas));
        Loaded l = load_candidate(file, text, overrides, set);
        error = std::move(l.error);
        return std::move(l.scenario);
      },
      plan, e);
}

}  // namespace

std::string_view status_name(Status status) {
  switch (status) {
    case Status::kFeasible:
      return "feasible";
    case Status::kInvalid:
      return "invalid";
    case Status::kOutOfMemory:
      return "out of memory";
    case Status::kMissesDeadline:
      return "misses deadline";
    case Status::kOverBudget:
      return "over budget";
    case Status::kOverPower:
      return "over power";
    case Status::kBoundMissesDeadline:
      return "misses deadline (bound)";
    case Status::kMissesSlo:
      return "misses SLO";
  }
  return "invalid";
}

std::vector<std::vector<std::string>> candidate_overrides(const scenario::PlanSpec& plan) {
  std::vector<std::vector<std::string>> out{{}};
  for (const scenario::PlanAxis& axis : plan.vary) {
    std::vector<std::vector<std::string>> next;
    next.reserve(out.size() * axis.values.size());
    for (const auto& prefix : out) {
      for (const std::string& v : axis.values) {
        next.push_back(prefix);
        next.back().push_back(axis.key + "=" + v);
      }
    }
    out = std::move(next);
  }
  return out;
}

double objective_value(const Evaluated& e, scenario::PlanObjective objective) {
  switch (objective) {
    case scenario::PlanObjective::kCost:
      return e.service ? e.serving.usd_per_hour : e.usd_per_run;
    case scenario::PlanObjective::kMfu:
      return -e.mfu;
    case scenario::PlanObjective::kNodes:
      return e.nodes;
    case scenario::PlanObjective::kGpus:
      return e.gpus;
    case scenario::PlanObjective::kTime:
      break;
  }
  if (e.service) return e.serving.p99_e2e_s;
  return e.time_to_train_s > 0 ? e.time_to_train_s : e.step_s;
}

bool ranks_before(const Evaluated& x, const Evaluated& y, scenario::PlanObjective objective) {
  const double vx = objective_value(x, objective);
  const double vy = objective_value(y, objective);
  if (vx != vy) return vx < vy;
  // Ties (the same node count, say) go to the faster run.
  return objective_value(x, scenario::PlanObjective::kTime) < objective_value(y, scenario::PlanObjective::kTime);
}

PlanResult run_plan(const std::string& file, const std::vector<std::string>& overrides, const PlanOptions& options) {
  const scenario::Scenario base = scenario::load_scenario(file, overrides);
  if (!base.plan) {
    throw scenario::ScenarioError({file, 1, 1}, "plan", "a plan: section saying what to vary", "none",
                                  "see docs/plan.md");
  }
  const scenario::PlanSpec& plan = *base.plan;
  const bool service = base.workload == scenario::WorkloadKind::kInference;
  const std::string text = sim::read_text_file(file, sim::kMaxYamlBytes);
  PlanResult result;
  result.objective = plan.objective;
  result.wafer = base.wafer_scale;
  for (const auto& axis : plan.vary) result.axes.push_back(axis.name);
  const std::vector<std::vector<std::string>> combos = candidate_overrides(plan);
  result.candidates.resize(combos.size());
  for (std::size_t i = 0; i < combos.size(); ++i) {
    Evaluated& e = result.candidates[i];
    e.index = i;
    for (const std::string& a : combos[i]) e.values.push_back(a.substr(a.find('=') + 1));
  }

  // Batches: each candidate loaded and evaluated on any thread, into its own slot, so that the
  // result is the same on any threads. The user catalogs this thread has active (--catalog) are
  // per thread: a worker activates a copy while it loads.
  const std::vector<scenario::UserCatalog> catalogs = scenario::active_user_catalogs();
  tbb::task_arena arena(std::max(1, options.threads));
  // Each thread keeps the clusters it has simulated on: their topologies, routes and timed
  // collectives serve every later strategy on the same cluster.
  tbb::enumerable_thread_specific<train::CommsCache> caches;
  const std::size_t batch = 32 * static_cast<std::size_t>(std::max(1, options.threads));
  std::optional<Journal> journal;
  std::vector<bool> done(combos.size(), false);
  if (!options.journal.empty()) {
    journal.emplace(options.journal, plan_identity(text, overrides, combos), options.resume);
    for (const auto& [index, from] : journal->done()) {
      if (index >= combos.size()) continue;
      adopt(result.candidates[index], from);
      done[index] = true;
    }
  }
  const std::size_t ranks = options.processes ? static_cast<std::size_t>(options.processes->size()) : 1;
  const std::size_t rank = options.processes ? static_cast<std::size_t>(options.processes->rank()) : 0;
  for (std::size_t begin = 0; begin < combos.size(); begin += batch * ranks) {
    const std::size_t end = std::min(combos.size(), begin + batch * ranks);
    std::vector<std::size_t> todo;
    for (std::size_t i = begin; i < end; ++i) {
      if (!done[i] && i % ranks == rank) todo.push_back(i);
    }
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t k) {
        Evaluated& e = result.candidates[todo[k]];
        std::optional<scenario::ScopedCatalogs> scope;
        if (!catalogs.empty()) scope.emplace(catalogs);
        if (service) return evaluate_candidate(file, text, overrides, combos[todo[k]], plan, e);
        const Loaded l = load_candidate(file, text, overrides, combos[todo[k]]);
        if (!l.scenario) {
          e.status = Status::kInvalid;
          e.reason = l.error;
          return;
        }
        if (l.scenario->workload == scenario::WorkloadKind::kWaferTraining) {
          evaluate_wafer_candidate(*l.scenario, plan, e);
        } else {
          evaluate(*l.scenario, plan, options.prune_by_bound, caches.local(), e);
        }
      });
    });
    if (journal && !todo.empty()) {
      std::vector<const Evaluated*> evaluated;
      for (std::size_t i : todo) evaluated.push_back(&result.candidates[i]);
      journal->append(evaluated);
    }
    if (options.progress) options.progress(end, combos.size());
  }

  if (ranks > 1) {
    // Each process's candidates, as journal lines (exact), to rank 0.
    std::string mine;
    for (std::size_t i = rank; i < combos.size(); i += ranks) mine += journal_line(result.candidates[i]) + '\n';
    const std::vector<std::string> parts = options.processes->gather(mine);
    if (!options.processes->root()) {
      result.complete = false;
      return result;
    }
    for (const std::string& part : parts) {
      std::size_t from = 0;
      for (std::size_t end = part.find('\n'); end != std::string::npos; from = end + 1, end = part.find('\n', from)) {
        std::optional<Evaluated> e = parse_journal_line(std::string_view(part).substr(from, end - from));
        if (!e || e->index >= combos.size()) throw std::logic_error("run_plan: a process sent a damaged candidate");
        adopt(result.candidates[e->index], std::move(*e));
      }
    }
  }

  for (const Evaluated& e : result.candidates) {
    if (e.status == Status::kFeasible) result.ranking.push_back(e.index);
  }
  std::stable_sort(result.ranking.begin(), result.ranking.end(), [&](std::size_t a, std::size_t b) {
    return ranks_before(result.candidates[a], result.candidates[b], plan.objective);
  });

  // The Pareto front of the objectives (quadratic in the feasible candidates: fine for the
  // thousands a plan holds).
  result.objectives = plan.objectives;
  if (plan.objectives.size() >= 2) {
    const auto dominates = [&](const Evaluated& a, const Evaluated& b) {
      bool strictly = false;
      for (scenario::PlanObjective o : plan.objectives) {
        const double va = objective_value(a, o);
        const double vb = objective_value(b, o);
        if (va > vb) return false;
        strictly = strictly || va < vb;
      }
      return strictly;
    };
    for (std::size_t i : result.ranking) {
      bool dominated = false;
      for (std::size_t j : result.ranking) {
        if (dominates(result.candidates[j], result.candidates[i])) {
          dominated = true;
          break;
        }
      }
      if (!dominated) result.pareto.push_back(i);
    }
  }

  // The scenario as written, where it stands among them.
  Evaluated& w = result.as_written;
  for (const auto& axis : plan.vary) {
    // What the loader noted, else the document's own scalar at that path (a section read by its
    // own reader, such as an inference service's), else the key's default.
    const auto it = base.written.find(axis.key);
    std::string value = it != base.written.end() ? it->second : "default";
    if (it == base.written.end()) {
      for (const auto& [path, scalar] : base.document) {
        if (path == axis.key) value = scalar;
      }
    }
    w.values.push_back(value);
  }
  if (service) {
    evaluate_candidate(file, text, overrides, {}, plan, w);
  } else if (base.workload == scenario::WorkloadKind::kWaferTraining) {
    evaluate_wafer_candidate(base, plan, w);
  } else {
    train::CommsCache cache;
    evaluate(base, plan, false, cache, w);
  }
  if (w.status == Status::kFeasible) {
    w.index = result.candidates.size();
    result.as_written_rank = 1;
    for (std::size_t i : result.ranking) {
      if (ranks_before(result.candidates[i], w, plan.objective)) ++result.as_written_rank;
    }
  }
  return result;
}

}  // namespace fathom::plan
