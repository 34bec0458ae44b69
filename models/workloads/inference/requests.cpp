#include "models/workloads/inference/requests.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace fathom::infer {

namespace {

// Stream ids of the scenario's seed that the request draws use (the job generator uses others).
constexpr std::uint64_t kArrivalStream = 0x1f0e'0001;
constexpr std::uint64_t kLengthStream = 0x1f0e'0002;

std::int32_t tokens(double drawn) {
  return static_cast<std::int32_t>(std::clamp(std::llround(drawn), 1LL, static_cast<long long>(INT32_MAX)));
}

}  // namespace

std::vector<Request> generate_requests(const RequestSpec& spec, std::uint64_t seed) {
  sim::RandomStream arrivals(seed, kArrivalStream);
  sim::RandomStream lengths(seed, kLengthStream);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(spec.count, 0)));
  jobs::Distribution gap;
  gap.kind = spec.arrival == ArrivalProcess::kGamma ? jobs::Distribution::Kind::kGamma
                                                    : jobs::Distribution::Kind::kExponential;
  gap.a = 1 / spec.rate;
  gap.b = spec.cv;
  double t = 0;
  for (std::int64_t i = 0; i < spec.count; ++i) {
    switch (spec.arrival) {
      case ArrivalProcess::kAllAtOnce:
        break;
      case ArrivalProcess::kPoisson:
      case ArrivalProcess::kGamma:
        t += gap.draw(arrivals);
        break;
      case ArrivalProcess::kDiurnal: {
        // Thinning (Lewis and Shedler 1979): candidates at the peak rate, each kept with
        // probability rate(t) / peak.
        const double peak = spec.rate * (1 + spec.amplitude);
        while (true) {
          t += arrivals.exponential(1 / peak);
          const double rate = spec.rate * (1 + spec.amplitude * std::sin(2 * std::numbers::pi * t / spec.period_s));
          if (arrivals.uniform01() * peak < rate) break;
        }
        break;
      }
    }
    if (!(t * 1e9 < 9.2e18)) {
      throw std::invalid_argument("request " + std::to_string(i + 1) + " would arrive beyond the clock's 292 years");
    }
    Request r;
    r.arrival = sim::SimTime::from_ns(static_cast<std::int64_t>(std::llround(t * 1e9)));
    r.prompt = tokens(spec.prompt.draw(lengths));
    r.output = tokens(spec.output.draw(lengths));
    out.push_back(r);
  }
  return out;
}

}  // namespace fathom::infer
