#include "models/hardware/accelerator_parameters.hpp"

namespace fathom::hw {

namespace {

using params::Quantity;
constexpr std::string_view kDatasheet = "each catalog entry's datasheet (docs/hardware.md)";
constexpr std::string_view kMeasured =
    "each catalog entry's efficiency_source (docs/hardware.md, Default efficiencies)";

}  // namespace

#define FATHOM_PEAK(precision)                                \
  [](const AcceleratorSpec& a) { return a.peak(precision); }, \
      [](AcceleratorSpec& a, double v) { a.peak_flops[static_cast<std::size_t>(precision)] = v; }

const std::vector<params::Parameter<AcceleratorSpec>>& accelerator_parameters() {
  static const std::vector<params::Parameter<AcceleratorSpec>> declared = {
      {"peak_fp32", Quantity::kFlops, FATHOM_PEAK(Precision::kFp32), "dense FP32 peak (0: unsupported)", kDatasheet},
      {"peak_tf32", Quantity::kFlops, FATHOM_PEAK(Precision::kTf32), "dense TF32 peak (0: unsupported)", kDatasheet},
      {"peak_bf16", Quantity::kFlops, FATHOM_PEAK(Precision::kBf16),
       "dense BF16 (and FP16) peak: the peak MFU is counted against", kDatasheet},
      {"peak_fp8", Quantity::kFlops, FATHOM_PEAK(Precision::kFp8), "dense FP8 peak (0: no FP8)", kDatasheet},
      {"hbm",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(AcceleratorSpec, hbm_bytes),
       "HBM capacity: the vendor's \"80GB\" read as GiB, as the HBM stacks carry it",
       kDatasheet,
       {},
       {},
       true},
      {"runtime_reserve",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(AcceleratorSpec, runtime_reserve_bytes),
       "HBM no tensor of a job can use: driver, CUDA context, cuBLAS workspaces, NCCL buffers, allocator "
       "fragmentation",
       "docs/hardware.md, Runtime reserve (2 GiB in every entry)",
       {},
       {},
       true},
      {"hbm_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(AcceleratorSpec, hbm_bytes_per_s),
       "peak HBM bandwidth",
       kDatasheet,
       {},
       {},
       true},
      {"tdp", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(AcceleratorSpec, tdp_watts), "board power", kDatasheet},
      {"compute_units", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(AcceleratorSpec, compute_units),
       "SMs (NVIDIA) or CUs (AMD): how many tiles of a GEMM run at once", kDatasheet},
  };
  return declared;
}

#undef FATHOM_PEAK

const std::vector<params::Parameter<DefaultEfficiencies>>& efficiency_parameters() {
  static const std::vector<params::Parameter<DefaultEfficiencies>> declared = {
      {"hbm",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, hbm),
       "streaming kernels, fraction of HBM bandwidth (STREAM Triad)",
       kMeasured,
       {},
       {},
       true},
      {"attention",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, attention),
       "fused (FlashAttention-style) attention, fraction of the peak",
       kMeasured,
       {},
       {},
       true},
      {"kernel_overhead", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, kernel_overhead_s),
       "fixed cost of each non-GEMM kernel, and of each GEMM without a curve", kMeasured},
      {"gemm_max",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, gemm_max),
       "large GEMMs, fraction of the BF16 dense peak (the GEMM curve's large end)",
       kMeasured,
       {},
       {},
       true},
      {"nvlink",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, nvlink),
       "collectives over NVLink, fraction of line rate: the default of collectives' efficiency.ring and .tree",
       kMeasured,
       {},
       {},
       true},
      {"nic",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(DefaultEfficiencies, nic),
       "collectives over the NICs, fraction of line rate: the default of collectives' efficiency.nic",
       kMeasured,
       {},
       {},
       true},
  };
  return declared;
}

const std::vector<params::Parameter<GemmTiles>>& gemm_tiles_parameters() {
  static constexpr std::string_view kFit =
      "fathom calibrate's tile fit of the entry's GEMM sweep (docs/calibration.md)";
  static const std::vector<params::Parameter<GemmTiles>> declared = {
      {"precision",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(GemmTiles, precision, Precision::kBf16, Precision::kFp8),
       "the sweep's data type: the peak the fractions are of",
       kFit,
       {},
       "bf16 fp8"},
      {"gemm_max",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(GemmTiles, gemm_max),
       "a full wave of tiles, fraction of that precision's peak",
       kFit,
       "gemm_max",
       {},
       true},
      {"launch", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(GemmTiles, launch_s), "cost of each GEMM launch", kFit,
       "launch_s"},
      {"wave_overhead", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(GemmTiles, wave_overhead_s),
       "cost of each wave of tiles", kFit, "wave_overhead_s"},
      {"hbm_fraction",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(GemmTiles, hbm_fraction),
       "of the HBM bandwidth a GEMM's own traffic reaches",
       kFit,
       "hbm_fraction",
       {},
       true},
      {"stream_k_efficiency",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(GemmTiles, stream_k_efficiency),
       "stream-K's rate relative to a full wave's",
       kFit,
       "stream_k_efficiency",
       {},
       true},
      {"unaligned_efficiency",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(GemmTiles, unaligned_efficiency),
       "compute rate of a shape off the 16-byte vector",
       kFit,
       "unaligned_efficiency",
       {},
       true},
  };
  return declared;
}

const std::vector<params::Parameter<MemoryKernelCost>>& memory_kernel_parameters() {
  static constexpr std::string_view kFit =
      "fathom calibrate's fit of a measured operator profile (docs/calibration.md, Operator profiles)";
  static const std::vector<params::Parameter<MemoryKernelCost>> declared = {
      {"launch", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(MemoryKernelCost, launch_s),
       "fixed cost of the kernel before it streams", kFit, "launch_s"},
      {"bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(MemoryKernelCost, bytes_per_s),
       "the rate it streams its bytes at (above the HBM peak where its operands stay in L2)",
       kFit,
       "bytes_per_s",
       {},
       true},
      {"min", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(MemoryKernelCost, min_s),
       "the least time the kernel takes, however few its bytes", kFit, "min_s"},
  };
  return declared;
}

const std::vector<params::Parameter<SwitchSpec>>& switch_parameters() {
  static constexpr std::string_view kSwitch = "each switch entry's datasheet (docs/hardware.md)";
  static const std::vector<params::Parameter<SwitchSpec>> declared = {
      {"radix", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(SwitchSpec, radix), "ports", kSwitch},
      {"port_bandwidth",
       Quantity::kBandwidth,
       FATHOM_PARAMETER_MEMBER(SwitchSpec, port_bytes_per_s),
       "per port, per direction",
       kSwitch,
       {},
       {},
       true},
      {"latency", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(SwitchSpec, latency_ns), "port to port", kSwitch},
      {"power", Quantity::kWatts, FATHOM_PARAMETER_MEMBER(SwitchSpec, watts), "typical power", kSwitch},
  };
  return declared;
}

}  // namespace fathom::hw
