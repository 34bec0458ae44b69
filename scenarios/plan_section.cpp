#include "scenarios/plan_section.hpp"

#include <functional>

#include "scenarios/units.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kValues =
    "a list of values ([16, 32, 64]) or a range of whole numbers ({from: 16, to: 128, step: 16})";

// A range {from, to, step} of whole numbers, `to` included.
std::vector<std::string> expand_range(MapReader range) {
  const std::int64_t from = range.count("from", Sign::kPositive);
  const std::int64_t to = range.count("to", Sign::kPositive);
  const std::int64_t step = range.count("step", 1, Sign::kPositive);
  if (to < from) range.fail("to", "a value at least `from` (" + std::to_string(from) + ")");
  if ((to - from) / step >= 100000) range.fail("step", "a step that gives at most 100,000 values");
  std::vector<std::string> values;
  for (std::int64_t v = from; v <= to; v += step) values.push_back(std::to_string(v));
  range.finish();
  return values;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& plan_axis_names(bool inference) {
  static const std::vector<std::pair<std::string, std::string>> service = {
      {"nodes", "cluster.nodes"},
      {"node", "cluster.node"},
      {"fabric", "cluster.fabric.kind"},
      {"accelerator", "hardware.accelerator"},
      {"tp", "workload.serving.tp"},
      {"pp", "workload.serving.pp"},
      {"replicas", "workload.serving.replicas"},
      {"weights", "workload.serving.weights"},
      {"kv_cache", "workload.serving.kv_cache"},
      {"max_seqs", "workload.serving.max_seqs"},
      {"max_batched_tokens", "workload.serving.max_batched_tokens"},
      {"chunked_prefill", "workload.serving.chunked_prefill"},
      {"block_tokens", "workload.serving.block_tokens"},
      {"memory_utilization", "workload.serving.memory_utilization"},
      {"preemption", "workload.serving.preemption"},
      {"routing", "workload.serving.routing"},
      {"prefill_replicas", "workload.disaggregation.prefill_replicas"},
      {"prefill_tp", "workload.disaggregation.prefill_tp"},
      {"rate", "workload.requests.rate"},
  };
  if (inference) return service;
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"nodes", "cluster.nodes"},
      {"node", "cluster.node"},
      {"fabric", "cluster.fabric.kind"},
      {"tiers", "cluster.fabric.tiers"},
      {"oversubscription", "cluster.fabric.oversubscription"},
      {"tp", "workload.parallel.tp"},
      {"pp", "workload.parallel.pp"},
      {"cp", "workload.parallel.cp"},
      {"ep", "workload.parallel.ep"},
      {"virtual_stages", "workload.parallel.virtual_stages"},
      {"schedule", "workload.parallel.schedule"},
      {"zero", "workload.parallel.zero"},
      {"sequence_parallel", "workload.parallel.sequence_parallel"},
      {"tp_overlap", "workload.parallel.tp_overlap"},
      {"overlap_grad_reduce", "workload.parallel.overlap_grad_reduce"},
      {"overlap_param_gather", "workload.parallel.overlap_param_gather"},
      {"overlap_p2p", "workload.parallel.overlap_p2p"},
      {"micro_batch", "workload.micro_batch"},
      {"checkpoint_interval", "workload.checkpoint.interval"},
      {"checkpoint_tier", "workload.checkpoint.tier"},
      {"checkpoint_mode", "workload.checkpoint.mode"},
      {"spares", "failures.spares"},
      {"recompute", "workload.recompute"},
      {"accelerator", "hardware.accelerator"},
  };
  return names;
}

std::string_view objective_name(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::kTime:
      return "time";
    case PlanObjective::kCost:
      return "cost";
    case PlanObjective::kMfu:
      return "mfu";
    case PlanObjective::kNodes:
      return "nodes";
    case PlanObjective::kGpus:
      return "gpus";
  }
  return "time";
}

PlanSpec read_plan_section(MapReader& section, const std::function<void(const ValueReader&)>& note, bool inference) {
  PlanSpec p;
  p.where = section.location();
  MapReader vary = section.child("vary");
  for (const auto& [short_name, key] : plan_axis_names(inference)) vary.declare({short_name});
  for (const auto& item : vary.keys()) {
    const ValueReader v = *vary.find(item);
    note(v);
    PlanAxis axis;
    axis.name = item;
    axis.where = v.location();
    for (const auto& [short_name, key] : plan_axis_names(inference)) {
      if (short_name == item) axis.key = key;
    }
    if (axis.key.empty()) {
      if (item.find('.') == std::string::npos) {
        std::string names;
        for (const auto& [short_name, key] : plan_axis_names(inference))
          names += (names.empty() ? "" : ", ") + short_name;
        vary.fail(item, "one of " + names + ", or a scenario key path such as workload.global_batch");
      }
      axis.key = item;
    }
    if (v.is_list()) {
      const ListReader list = v.list();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const ValueReader value = list.at(i);
        if (!value.is_scalar() || value.is_null()) value.fail("a scalar value");
        axis.values.push_back(value.node().Scalar());
      }
    } else if (v.is_map()) {
      axis.values = expand_range(v.map());
    } else {
      v.fail(std::string(kValues));
    }
    if (axis.values.empty()) v.fail(std::string(kValues) + " with at least one value");
    p.vary.push_back(std::move(axis));
  }
  if (p.vary.empty()) section.fail("vary", "at least one key to vary");
  vary.finish();
  if (auto v = section.find("deadline")) {
    note(*v);
    p.deadline_s = v->duration(Sign::kPositive).to_seconds();
  }
  if (auto v = section.find("budget")) {
    note(*v);
    p.budget_usd = v->usd(Sign::kPositive);
  }
  if (auto v = section.find("power")) {
    note(*v);
    p.power_w = v->watts(Sign::kPositive);
  }
  if (auto v = section.find("objective")) {
    note(*v);
    const auto read = [](const ValueReader& word) {
      const std::string o = word.one_of({"time", "cost", "mfu", "nodes", "gpus"});
      return o == "cost"    ? PlanObjective::kCost
             : o == "mfu"   ? PlanObjective::kMfu
             : o == "nodes" ? PlanObjective::kNodes
             : o == "gpus"  ? PlanObjective::kGpus
                            : PlanObjective::kTime;
    };
    p.objectives.clear();
    if (v->is_list()) {
      const ListReader list = v->list();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const PlanObjective o = read(list.at(i));
        if (p.has(o)) list.at(i).fail("each objective once");
        p.objectives.push_back(o);
      }
      if (p.objectives.empty()) v->fail("an objective, or a list of them for a Pareto front");
    } else {
      p.objectives.push_back(read(*v));
    }
    p.objective = p.objectives.front();
  }
  if (auto v = section.find("top")) {
    note(*v);
    p.top = v->positive_int();
  }
  if (auto v = section.find("fewest_replicas")) {
    note(*v);
    if (!inference) v->fail("a key of an inference service's plan only (workload kind: inference)");
    if (!v->is_map()) v->fail("a range of replica counts ({from: 1, to: 32})");
    MapReader range = v->map();
    const std::int64_t from = range.count("from", 1, Sign::kPositive);
    const std::int64_t to = range.count("to", Sign::kPositive);
    if (to < from) range.fail("to", "a value at least `from` (" + std::to_string(from) + ")");
    if (to > 100000) range.fail("to", "at most 100,000 replicas");
    p.fewest_replicas_from = static_cast<int>(from);
    p.fewest_replicas_to = static_cast<int>(to);
    range.finish();
  }
  return p;
}

}  // namespace fathom::scenario
