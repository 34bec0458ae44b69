// Queueing closed forms and confidence intervals for the tests of the job cluster.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace fathom::test {

// The Erlang C mean wait of an M/M/c queue: arrival rate lambda, service rate mu per server.
inline double erlang_c_wait(int c, double lambda, double mu) {
  const double a = lambda / mu;  // offered load in servers
  const double rho = a / c;
  double term = 1, sum = 0;
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double last = term / (1 - rho);  // a^c / c! / (1 - rho)
  return last / (sum + last) / (c * mu - lambda);
}

struct Interval {
  double mean = 0;
  double half = 0;  // the 95% interval is mean +- half
};

// The mean of `samples` after the first `warmup`, with a 95% confidence interval from 20 batch
// means of `batch` samples each (Student's t, 19 degrees of freedom).
inline Interval batch_means_95(const std::vector<double>& samples, std::size_t warmup, std::size_t batch) {
  constexpr int kBatches = 20;
  std::vector<double> means;
  for (int b = 0; b < kBatches; ++b) {
    double sum = 0;
    for (std::size_t i = warmup + b * batch; i < warmup + (b + 1) * batch; ++i) sum += samples.at(i);
    means.push_back(sum / static_cast<double>(batch));
  }
  double mean = 0, var = 0;
  for (const double m : means) mean += m / kBatches;
  for (const double m : means) var += (m - mean) * (m - mean) / (kBatches - 1);
  return {mean, 2.093 * std::sqrt(var / kBatches)};
}

}  // namespace fathom::test
