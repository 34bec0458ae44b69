// The mean of independent replications and its 95% confidence interval (Student's t): what a
// Monte Carlo model reports for each figure it estimates.
#pragma once

#include <vector>

namespace fathom::sim {

struct MeanInterval {
  double mean = 0;
  double half_width = 0;  // the 95% interval is mean +- half_width; 0 with one sample
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
};

// The two-sided 95% quantile of Student's t with `df` >= 1 degrees of freedom: a table to 30,
// then the Cornish-Fisher expansion about the normal's 1.959964 (error under 1e-4).
double student_t975(int df);

// std::invalid_argument when `samples` is empty.
MeanInterval mean_interval(const std::vector<double>& samples);

}  // namespace fathom::sim
