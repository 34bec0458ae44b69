#include "report/training/training_labels.hpp"

#include <cstdio>

namespace fathom::report {

std::vector<BreakdownComponent> components(const train::StepBreakdown& b) {
  return {{"compute", "compute", b.compute},
          {"tp_comm", "tensor-parallel comm (exposed)", b.tp},
          {"cp_comm", "context-parallel comm (exposed)", b.cp},
          {"ep_comm", "expert-parallel comm (exposed)", b.ep},
          {"pp_comm", "pipeline sends (exposed)", b.pp},
          {"pipeline_bubble", "pipeline bubble", b.bubble},
          {"dp_comm", "data-parallel comm (exposed)", b.dp},
          {"optimizer", "optimizer step", b.optimizer}};
}

const char* precision_name(hw::Precision p) { return p == hw::Precision::kFp8 ? "fp8" : "bf16"; }

const char* recompute_name(train::Recompute r) {
  return r == train::Recompute::kFull ? "full" : r == train::Recompute::kSelective ? "selective" : "none";
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1ULL << 30));
  return buf;
}

std::string duration_text(double s) {
  char buf[48];
  if (s >= 86400) {
    std::snprintf(buf, sizeof buf, "%.2f days", s / 86400);
  } else if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%.2f h", s / 3600);
  } else if (s >= 1) {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  }
  return buf;
}

}  // namespace fathom::report
