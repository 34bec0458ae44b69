#include "models/hardware/accelerator.hpp"

namespace fathom::hw {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8:
      return "fp8";
  }
  return "unknown";
}

std::string_view to_string(MemoryKernel k) {
  switch (k) {
    case MemoryKernel::kNorm:
      return "norm";
    case MemoryKernel::kRotary:
      return "rotary";
    case MemoryKernel::kActivation:
      return "activation";
    case MemoryKernel::kResidual:
      return "residual";
  }
  return "unknown";
}

}  // namespace fathom::hw
