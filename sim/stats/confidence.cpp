#include "sim/stats/confidence.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace fathom::sim {

double student_t975(int df) {
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) throw std::invalid_argument("student_t975: at least one degree of freedom");
  if (df <= 30) return kTable[static_cast<std::size_t>(df - 1)];
  const double z = 1.959964, n = df;
  return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

MeanInterval mean_interval(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("mean_interval: no samples");
  MeanInterval out;
  for (double x : samples) out.mean += x;
  const double n = static_cast<double>(samples.size());
  out.mean /= n;
  if (samples.size() < 2) return out;
  double squares = 0;
  for (double x : samples) squares += (x - out.mean) * (x - out.mean);
  const double sd = std::sqrt(squares / (n - 1));
  out.half_width = student_t975(static_cast<int>(samples.size()) - 1) * sd / std::sqrt(n);
  return out;
}

}  // namespace fathom::sim
