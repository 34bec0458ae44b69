#include "models/workloads/training/tp_overlap.hpp"

#include <algorithm>

namespace fathom::train {

double tp_overlap_exposed_seconds(double comm_seconds, double gemm_seconds, int chunks) {
  if (comm_seconds <= 0) return 0;
  if (chunks < 2 || gemm_seconds <= 0) return comm_seconds;
  const double n = chunks;
  const double c = comm_seconds / n;
  const double g = gemm_seconds / n;
  const double elapsed = c + (n - 1) * std::max(c, g) + g;
  return std::max(0.0, elapsed - gemm_seconds);
}

}  // namespace fathom::train
