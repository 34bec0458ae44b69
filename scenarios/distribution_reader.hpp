// A distribution of positive values in a scenario (jobs::Distribution): a plain value (fixed), or
// `{distribution: KIND, ...}` with the kind's parameters; `{values: [...], weights: [...]}` is an
// empirical one. Durations in time units (read as seconds), counts as plain numbers. The job
// generator's gaps, sizes and run times and the inference requests' lengths are read with it.
#pragma once

#include <functional>
#include <string_view>

#include "models/workloads/jobs/job_generator.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// What a duration's distribution is expected to be (pass it as `expected` to read durations).
inline constexpr std::string_view kDurationDistribution = "a duration, or {distribution: exponential, mean: 90s}";

// The distribution at `key` of `parent`, a ScenarioError at the value when its parameters are
// invalid. `expected` says what a plain value should be ("a number of GPUs, or ..."), or is
// kDurationDistribution for durations; `note` is called with every value read.
jobs::Distribution read_distribution(MapReader& parent, std::string_view key, std::string_view expected,
                                     const std::function<void(const ValueReader&)>& note);

}  // namespace fathom::scenario
