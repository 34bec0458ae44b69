#include "models/workloads/jobs/job_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace fathom::jobs {

namespace {

// Streams of the seed: one per generator, so that adding one changes no other's draws.
constexpr std::uint64_t kGeneratorStream = 0x6a0b5;
constexpr std::uint64_t kResampleStream = 0x6a0b6;

double standard_normal(sim::RandomStream& rng) {
  // Box-Muller; one of the pair is dropped so that each draw uses exactly two uniforms.
  const double u = rng.uniform01_open_below(), v = rng.uniform01();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

// Marsaglia and Tsang's method (ACM TOMS 2000) for shape k >= 1; for k < 1, boosted by U^(1/k).
double standard_gamma(sim::RandomStream& rng, double k) {
  if (k < 1) return standard_gamma(rng, k + 1) * std::pow(rng.uniform01_open_below(), 1 / k);
  const double d = k - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  while (true) {
    double x = 0, v = 0;
    do {
      x = standard_normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform01_open_below();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

double Distribution::draw(sim::RandomStream& rng) const {
  switch (kind) {
    case Kind::kFixed:
      return a;
    case Kind::kExponential:
      return rng.exponential(a);
    case Kind::kUniform:
      return a + (b - a) * rng.uniform01();
    case Kind::kLogUniform:
      return a * std::exp(std::log(b / a) * rng.uniform01());
    case Kind::kLogNormal:
      return a * std::exp(b * standard_normal(rng));
    case Kind::kGamma: {
      const double shape = 1 / (b * b);
      return standard_gamma(rng, shape) * a / shape;
    }
    case Kind::kEmpirical: {
      const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
      double u = rng.uniform01() * total;
      for (std::size_t k = 0; k < values.size(); ++k) {
        if (u < weights[k]) return values[k];
        u -= weights[k];
      }
      return values.back();
    }
  }
  return a;
}

double Distribution::mean() const {
  switch (kind) {
    case Kind::kFixed:
    case Kind::kExponential:
    case Kind::kGamma:
      return a;
    case Kind::kUniform:
      return (a + b) / 2;
    case Kind::kLogUniform:
      return (b - a) / std::log(b / a);
    case Kind::kLogNormal:
      return a * std::exp(b * b / 2);
    case Kind::kEmpirical: {
      const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
      double m = 0;
      for (std::size_t k = 0; k < values.size(); ++k) m += values[k] * weights[k] / total;
      return m;
    }
  }
  return a;
}

std::string Distribution::invalid() const {
  const auto finite = [](double x) { return std::isfinite(x); };
  switch (kind) {
    case Kind::kFixed:
    case Kind::kExponential:
      return a > 0 && finite(a) ? "" : "a positive value";
    case Kind::kUniform:
      return a >= 0 && b > a && finite(b) ? "" : "0 <= min < max";
    case Kind::kLogUniform:
      return a > 0 && b > a && finite(b) ? "" : "0 < min < max";
    case Kind::kLogNormal:
      return a > 0 && finite(a) && b >= 0 && finite(b) ? "" : "a positive median and sigma >= 0";
    case Kind::kGamma:
      return a > 0 && finite(a) && b > 0 && finite(b) ? "" : "a positive mean and a positive cv";
    case Kind::kEmpirical: {
      if (values.empty() || values.size() != weights.size()) return "as many weights as values, at least one";
      double total = 0;
      for (std::size_t k = 0; k < values.size(); ++k) {
        if (!(values[k] > 0) || !finite(values[k]) || !(weights[k] >= 0) || !finite(weights[k])) {
          return "positive values and non-negative weights";
        }
        total += weights[k];
      }
      return total > 0 ? "" : "weights that do not all vanish";
    }
  }
  return "";
}

std::vector<TraceJob> generate_jobs(const JobGeneratorSpec& spec, std::uint64_t seed) {
  for (const Distribution* d : {&spec.interarrival_s, &spec.gpus, &spec.run_s}) {
    if (const std::string why = d->invalid(); !why.empty()) {
      throw std::invalid_argument("generate_jobs: a distribution needs " + why);
    }
  }
  sim::RandomStream rng(seed, kGeneratorStream);
  std::vector<TraceJob> jobs(static_cast<std::size_t>(std::max<std::int64_t>(spec.jobs, 0)));
  double t = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    TraceJob& j = jobs[i];
    t += spec.interarrival_s.draw(rng);
    j.id = static_cast<std::int64_t>(i + 1);
    j.submit = sim::SimTime::from_seconds(t);
    j.gpus = static_cast<std::int32_t>(std::clamp(std::llround(spec.gpus.draw(rng)), 1LL, 1LL << 30));
    j.run = sim::SimTime::from_seconds(std::max(1.0, std::round(spec.run_s.draw(rng))));
    j.status = JobStatus::kCompleted;
  }
  return jobs;
}

std::vector<TraceJob> resample_jobs(std::span<const TraceJob> source, std::int64_t count, std::uint64_t seed) {
  if (source.size() < 2) throw std::invalid_argument("resample_jobs: a source of at least 2 jobs");
  sim::RandomStream rng(seed, kResampleStream);
  std::vector<TraceJob> jobs(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  sim::SimTime t = sim::SimTime::zero();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::size_t gap = 1 + rng.uniform_below(source.size() - 1);  // the gap before source job `gap`
    t += source[gap].submit - source[gap - 1].submit;
    jobs[i] = source[rng.uniform_below(source.size())];
    jobs[i].id = static_cast<std::int64_t>(i + 1);
    jobs[i].submit = t;
    jobs[i].logged_wait.reset();
  }
  return jobs;
}

}  // namespace fathom::jobs
