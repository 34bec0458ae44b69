#include "models/workloads/training/tp_overlap.hpp"

#include <algorithm>

namespace fathom::train {

TpOverlapMethod tp_overlap_method(coll::Op op, std::string_view gemm, int tp) {
  if (op == coll::Op::kReduceScatter) {
    if (gemm == "attention_projection") return {"proj_fprop (pipeline)", 4, 24};
    if (gemm == "mlp_down") return {"fc2_fprop (pipeline)", 4, 16};
    if (gemm == "qkv") return {"qkv_dgrad (bulk)", 0, 4};
    if (gemm == "mlp_up") return {"fc1_dgrad (bulk)", 0, 2};
  }
  if (op == coll::Op::kAllGather) {
    if (gemm == "qkv") return {"qkv_fprop (ring exchange)", tp, 1};
    if (gemm == "mlp_up") return {"fc1_fprop (ring exchange)", tp, 1};
    if (gemm == "attention_projection") return {"proj_dgrad (ring exchange)", tp, 1};
    if (gemm == "mlp_down") return {"fc2_dgrad (ring exchange)", tp, 1};
  }
  return {"not overlapped", 1, 0};
}

double tp_overlap_gemm_slowdown(int sms, int comm_sms) {
  if (sms <= 0 || comm_sms <= 0 || comm_sms >= sms) return 1;
  return static_cast<double>(sms) / (sms - comm_sms);
}

double tp_overlap_exposed_seconds(double comm_seconds, double gemm_seconds, int chunks, double gemm_slowdown) {
  if (comm_seconds <= 0) return 0;
  if (chunks == 1 || chunks < 0 || gemm_seconds <= 0) return comm_seconds;
  const double slowed = gemm_seconds * std::max(1.0, gemm_slowdown);
  if (chunks == 0) return std::max(0.0, std::max(comm_seconds, slowed) - gemm_seconds);
  const double n = chunks;
  const double c = comm_seconds / n;
  const double g = slowed / n;
  const double elapsed = c + (n - 1) * std::max(c, g) + g;
  return std::max(0.0, elapsed - gemm_seconds);
}

}  // namespace fathom::train
