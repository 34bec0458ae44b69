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
  Location where;
};

// The short names `vary:` takes and the keys they set; any other name with a dot is taken as a
// key path of the scenario itself.
const std::vector<std::pair<std::string, std::string>>& plan_axis_names();

std::string_view objective_name(PlanObjective objective);

// Reads `plan:`; `note` is called with every value read.
PlanSpec read_plan_section(MapReader& section, const std::function<void(const ValueReader&)>& note);

}  // namespace fathom::scenario
