// Stragglers: a synchronous training step waits for its slowest rank.
//
// GPUs of one SKU do not run at one speed: manufacturing variability and power management give
// each its own (Sinha et al., "Not All GPUs Are Created Equal", SC'22: 8% average performance
// variation across the GPUs of a cluster, up to 22%, outliers 1.5x slower than the median), and
// a rank's time per step varies from step to step (interruptions, throttling). Every tensor-
// parallel collective, pipeline hand-off and data-parallel reduction of a step waits for the
// ranks it joins, so the step runs at the pace of the slowest of all its ranks.
//
// Model: rank g's compute time is t (1 + x_g) with x_g ~ N(0, spread^2 + jitter^2), independent
// across ranks: `spread` the coefficient of variation of GPU speed across the cluster (drawn
// once per GPU), `jitter` that of one rank's step time from step to step (drawn each step; the
// sum of two independent normals is normal). The slowest of n ranks then takes
// t (1 + sigma e_n) in expectation, e_n the expected maximum of n standard normals, sigma =
// sqrt(spread^2 + jitter^2). The step's compute runs at that pace on every stage: a pipeline
// runs at its slowest stage's pace and the data-parallel reduction waits for its slowest replica.
// docs/training.md ("Stragglers") gives the sources and the limits.
#pragma once

namespace fathom::train {

struct StragglerSpec {
  bool enabled = true;
  // Coefficient of variation of GPU speed across a cluster. Sinha et al. (SC'22) report 8% average
  // variation (max - min of the bulk, outliers aside) over clusters of thousands of GPUs; read as
  // the whiskers of a box plot (+-2.7 sigma of a normal), sigma = 8% / 5.4 = 1.5%.
  double speed_spread = 0.015;
  // Coefficient of variation of one rank's step time from step to step: no published per-rank
  // figure is at hand, so 0 unless measured (docs/training.md).
  double jitter = 0;

  bool operator==(const StragglerSpec&) const = default;
};

// E[max of n independent standard normals]: 0 for n = 1, 1/sqrt(pi) for n = 2, about 3.24 for
// n = 1000. Numerical integration of n x phi(x) Phi(x)^(n-1), accurate to 1e-6. Throws
// std::invalid_argument for n < 1.
double expected_max_standard_normal(long long n);

// The factor the compute of a step over `ranks` synchronised ranks takes: 1 + sigma e_ranks,
// 1 when off. Throws std::invalid_argument for ranks < 1 or a negative coefficient.
double straggler_factor(const StragglerSpec& spec, long long ranks);

}  // namespace fathom::train
