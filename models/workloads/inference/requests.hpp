// The requests an inference service receives: when each arrives and how many tokens its prompt
// has and its answer will have. Drawn from an arrival process and length distributions, or read
// from a trace (the scenario loader reads traces, scenarios/azure_llm_reader.hpp). Each draw
// comes from the scenario seed's own counter-based stream, so the same seed gives the same
// requests on any machine.
#pragma once

#include <cstdint>
#include <vector>

#include "models/workloads/jobs/job_generator.hpp"
#include "sim/time.hpp"

namespace fathom::infer {

struct Request {
  sim::SimTime arrival;
  std::int32_t prompt = 0;  // tokens of the prompt (context), at least 1
  std::int32_t output = 0;  // tokens generated, at least 1
};

enum class ArrivalProcess {
  kPoisson,    // exponential gaps of mean 1 / rate
  kGamma,      // gamma gaps of mean 1 / rate and coefficient of variation cv (above 1: bursty)
  kDiurnal,    // Poisson with rate(t) = rate (1 + amplitude sin(2 pi t / period)), by thinning
  kAllAtOnce,  // every request at time 0: offline (batch) throughput
};

struct RequestSpec {
  ArrivalProcess arrival = ArrivalProcess::kPoisson;
  double rate = 1;            // requests per second (mean, for diurnal)
  double cv = 1;              // gamma
  double amplitude = 0.5;     // diurnal: 0 to 1
  double period_s = 86400;    // diurnal
  std::int64_t count = 0;     // requests to draw
  jobs::Distribution prompt;  // tokens, rounded to whole tokens, at least 1
  jobs::Distribution output;  // tokens, rounded to whole tokens, at least 1
};

// `spec.count` requests in arrival order, the first one gap after time 0 (at 0 for kAllAtOnce).
// Throws std::invalid_argument when an arrival would fall beyond the clock (sim::SimTime).
std::vector<Request> generate_requests(const RequestSpec& spec, std::uint64_t seed);

}  // namespace fathom::infer
