// `fathom simulate` for a training workload: evaluates it (report/training), prints the
// terminal report and writes the JSON report and the Chrome trace.
#pragma once

#include <string>

#include "scenarios/scenario.hpp"

namespace fathom::cli {

struct TrainingOutputs {
  std::string report;  // -o: the terminal report ("": standard output)
  std::string json;    // --json (or the scenario's output.json)
  std::string trace;   // --trace (or output.trace)
  // What asked for each, for errors: the flag, or the scenario's key.
  std::string json_flag = "--json";
  std::string trace_flag = "--trace";
};

// Returns the exit code: kExitOk, or kExitFailedExpectation when an expectation fails. A
// strategy that does not fit in memory is bad input: ScenarioError (exit 2), nothing written.
int run_training(const scenario::Scenario& scenario, const TrainingOutputs& outputs);

}  // namespace fathom::cli
