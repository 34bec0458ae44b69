#include "report/training/training_labels.hpp"

#include <cstdio>
#include <utility>

namespace fathom::report {

std::vector<BreakdownComponent> components(const train::StepBreakdown& b) {
  return {{"compute", "compute", b.compute},
          {"tp_comm", "tensor-parallel comm (exposed)", b.tp},
          {"cp_comm", "context-parallel comm (exposed)", b.cp},
          {"ep_comm", "expert-parallel comm (exposed)", b.ep},
          {"pp_comm", "pipeline sends (exposed)", b.pp},
          {"pipeline_bubble", "pipeline bubble", b.bubble},
          {"dp_comm", "data-parallel comm (exposed)", b.dp},
          {"optimizer", "optimizer step", b.optimizer},
          {"straggler_wait", "waiting for the slowest rank", b.straggler}};
}

const char* precision_name(hw::Precision p) { return p == hw::Precision::kFp8 ? "fp8" : "bf16"; }

const char* recompute_name(train::Recompute r) {
  return r == train::Recompute::kFull ? "full" : r == train::Recompute::kSelective ? "selective" : "none";
}

std::string size_text(double bytes) {
  static constexpr std::pair<double, const char*> kUnits[] = {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"},
                                                              {1e6, "MB"},  {1e3, "KB"},  {1, "B"}};
  for (const auto& [size, unit] : kUnits) {
    if (bytes >= size || size == 1) {
      char text[48];
      std::snprintf(text, sizeof text, "%.3g %s", bytes / size, unit);
      return text;
    }
  }
  return "0 B";
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
