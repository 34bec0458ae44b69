// Synthetic job traces: jobs drawn from an arrival process and size and run-time distributions,
// or resampled from a real trace. Each generator draws from its own counter-based stream of the
// scenario's seed, so the same seed gives the same trace on any machine.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/workloads/jobs/trace_job.hpp"
#include "sim/random.hpp"

namespace fathom::jobs {

// A distribution of positive values (seconds, or GPUs).
struct Distribution {
  enum class Kind {
    kFixed,        // a: the value
    kExponential,  // a: the mean
    kUniform,      // [a, b)
    kLogUniform,   // log-uniform on [a, b): as many values per decade
    kLogNormal,    // a: the median, b: sigma of the log
    kGamma,        // a: the mean, b: the coefficient of variation (1: exponential; above 1: bursty)
    kEmpirical,    // `values` with `weights`
  };
  Kind kind = Kind::kFixed;
  double a = 0, b = 0;
  std::vector<double> values, weights;

  double draw(sim::RandomStream& rng) const;
  double mean() const;
  // A rule the parameters break ("b: expected above a"), or "" when they are valid.
  std::string invalid() const;
};

struct JobGeneratorSpec {
  std::int64_t jobs = 0;
  Distribution interarrival_s;  // the arrival process: exponential gaps are Poisson arrivals
  Distribution gpus;            // rounded to whole GPUs, at least 1
  Distribution run_s;           // rounded to whole seconds, at least 1
};

// Jobs 1..n in submit order, the first arriving after one gap from time 0. Estimates are left
// empty (the scenario's `estimates: exact` gives the run times).
std::vector<TraceJob> generate_jobs(const JobGeneratorSpec& spec, std::uint64_t seed);

// `jobs` jobs drawn with replacement from `source` (sizes, run times, estimates, users), arriving
// with gaps drawn with replacement from the source's own gaps between submits. Numbered 1..n;
// each keeps its source job's line. Throws std::invalid_argument for a source of fewer than 2 jobs.
std::vector<TraceJob> resample_jobs(std::span<const TraceJob> source, std::int64_t jobs, std::uint64_t seed);

}  // namespace fathom::jobs
