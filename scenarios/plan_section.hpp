// The scenario's `plan:` section (docs/plan.md): what `fathom plan` may vary, the constraints a
// candidate must meet and what it optimises. A plain config struct; plan/ runs the search.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/errors.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// One axis of the search: a scenario key and the values it takes, as YAML scalars written.
struct PlanAxis {
  std::string name;                 // as written under `vary:` ("nodes", "tp", "workload.micro_batch")
  std::string key;                  // the scenario key it sets ("cluster.nodes", "workload.parallel.tp")
  std::vector<std::string> values;  // in the order given (a range expanded)
  Location where;
};

enum class PlanObjective {
  kTime,   // the shortest run (time to train with workload.tokens, else the step)
  kCost,   // the cheapest run on the owned cluster (needs cost: and workload.tokens)
  kMfu,    // the highest model FLOP utilisation
  kNodes,  // the fewest nodes, ties by time
  kGpus,   // the fewest accelerators, ties by time
};

struct PlanSpec {
  std::vector<PlanAxis> vary;                      // the candidates are every combination, the last axis fastest
  std::optional<double> deadline_s;                // the run must finish within (needs workload.tokens)
  std::optional<double> budget_usd;                // capex at most (needs cost:)
  std::optional<double> power_w;                   // facility power at most (needs cost:)
  PlanObjective objective = PlanObjective::kTime;  // ranks the candidates
  // Every objective given (`objective: [time, cost]`), the ranking one first; two or more give
  // the Pareto front of the feasible candidates.
  std::vector<PlanObjective> objectives = {PlanObjective::kTime};
  bool has(PlanObjective o) const { return std::find(objectives.begin(), objectives.end(), o) != objectives.end(); }
  int top = 5;
  // An inference service's plan: each candidate's replica count is the fewest in
  // [fewest_replicas_from, fewest_replicas_to] that meets the workload's SLO at P99 (0: the
  // replicas are the scenario's, or an axis's).
  int fewest_replicas_from = 0;
  int fewest_replicas_to = 0;
  bool searches_replicas() const { return fewest_replicas_from > 0; }
  Location where;
};

// The short names `vary:` takes and the keys they set, for a training workload or an inference
// service (whose `tp` is its replicas' tensor parallelism); any other name with a dot is taken as
// a key path of the scenario itself.
const std::vector<std::pair<std::string, std::string>>& plan_axis_names(bool inference = false);

std::string_view objective_name(PlanObjective objective);

// Reads `plan:` of a training workload or, with `inference`, of an inference service; `note` is
// called with every value read.
PlanSpec read_plan_section(MapReader& section, const std::function<void(const ValueReader&)>& note,
                           bool inference = false);

}  // namespace fathom::scenario
