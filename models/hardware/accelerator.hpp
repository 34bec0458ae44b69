// AcceleratorSpec: one accelerator's public specification (peak dense FLOP/s per precision,
// HBM capacity and bandwidth, power), and DefaultEfficiencies: the fractions of those peaks
// that real kernels reach, before any calibration. Plain SI values; the hardware catalog
// (scenarios/hardware/accelerators.yaml) fills them and names the source of every figure.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/collective_params.hpp"

namespace fathom::hw {

enum class Precision { kFp32, kTf32, kBf16, kFp8 };
inline constexpr std::size_t kPrecisions = 4;

std::string_view to_string(Precision p);  // "fp32", "tf32", "bf16", "fp8"

// One point of a GEMM sweep: a GEMM of `flops` FLOPs (2*m*n*k) reached `fraction` of the
// dense peak of the sweep's precision.
struct GemmPoint {
  double flops = 0;
  double fraction = 0;
};

// Achievable fractions of the peaks. A compute kernel's time is a roofline
// (models/compute/roofline.hpp): the larger of its FLOPs at the achievable compute rate and
// its bytes at hbm * hbm_bandwidth.
// - GEMMs of known shape (m, n, k, batch) with gemm_tiles: the tile model
//   (compute::gemm_model), which also knows narrow and unaligned shapes.
// - Other GEMMs with a gemm_curve: the achievable fraction depends on the GEMM's size, interpolated
//   in a measured sweep (compute::gemm_efficiency); the curve's times include every fixed
//   cost, so nothing is added.
// - Other kernels (attention, memory-bound), and GEMMs without a curve: the fraction is
//   attention or gemm_max, and kernel_overhead_s is added, so that a GEMM of F FLOPs reaches
//   gemm_max * F / (F + gemm_max * peak * kernel_overhead_s) of the peak.
// The figures `fathom calibrate` fits to a GEMM sweep for the tile model of GEMMs of known shape
// (models/compute/gemm_tiles.hpp, whose GemmModel adds the accelerator's own figures to them).
struct GemmTileCosts {
  double gemm_max = 0.8;            // a full wave of tiles, fraction of the fit's peak
  double launch_s = 0;              // per GEMM
  double wave_overhead_s = 0;       // per wave of tiles (prologue and epilogue of a tile)
  double hbm_fraction = 0.9;        // of the HBM bandwidth a GEMM's traffic reaches
  double stream_k_efficiency = 1;   // stream-K's rate relative to a full wave's
  double unaligned_efficiency = 1;  // compute rate of a shape off the 16-byte vector
};

// An accelerator's tile model: the fit, with the data type it was fitted at; absent
// (present = false) where no sweep with non-square shapes has been fitted.
struct GemmTiles : GemmTileCosts {
  bool present = false;
  Precision precision = Precision::kBf16;  // the sweep's data type: the fit's own peak
};

// The memory-bound kernels of a transformer layer that calibration times one by one (measured
// per-operator profiles: calibrate/fit/kernel_fit.hpp). Every other memory-bound kernel takes the
// generic streaming rate (DefaultEfficiencies::hbm) and kernel_overhead_s.
enum class MemoryKernel { kNorm, kRotary, kActivation, kResidual };
inline constexpr std::size_t kMemoryKernels = 4;
std::string_view to_string(MemoryKernel k);  // "norm", "rotary", "activation", "residual"

// One memory-bound kernel's measured cost: it streams its bytes at `bytes_per_s` after a fixed
// `launch_s`, and never takes less than `min_s` (a kernel too small to fill the GPU is bound by
// its latency):
//   seconds = max(min_s, launch_s + bytes / bytes_per_s).
// bytes_per_s may exceed the HBM peak: a small kernel's operands stay in the L2 cache between
// the kernels that write and read them. Absent (bytes_per_s 0): the generic rate.
struct MemoryKernelCost {
  double launch_s = 0;
  double bytes_per_s = 0;
  double min_s = 0;
  bool present() const { return bytes_per_s > 0; }
  double seconds(double bytes) const {
    const double streamed = launch_s + bytes / bytes_per_s;
    return streamed > min_s ? streamed : min_s;
  }
  bool operator==(const MemoryKernelCost&) const = default;
};

struct DefaultEfficiencies {
  double gemm_max = 0.8;            // large GEMMs, fraction of the BF16 dense peak
  double kernel_overhead_s = 5e-6;  // fixed cost per non-GEMM kernel, and per GEMM without a curve
  // Square-GEMM sweep, sorted by strictly increasing flops; empty: no curve. Its fractions are
  // of gemm_curve_precision's dense peak; other precisions scale the curve's shape to gemm_max.
  std::vector<GemmPoint> gemm_curve;
  Precision gemm_curve_precision = Precision::kBf16;
  // GEMMs whose shape is known use the tile model instead of the curve where the entry has one.
  GemmTiles gemm_tiles;
  // A second tile model fitted at BF16 where gemm_tiles is another precision's (a calibration's
  // operator profile: GEMMs of real layer shapes, measured at BF16): BF16 GEMMs of known shape
  // use it as it is instead of gemm_tiles rescaled. Absent: gemm_tiles serves every precision.
  GemmTiles gemm_tiles_bf16;
  // Measured costs of the memory-bound kernels a profile names (index: MemoryKernel).
  std::array<MemoryKernelCost, kMemoryKernels> memory_kernels{};
  double attention = 0.6;  // fused (FlashAttention-style) attention, fraction of peak
  double hbm = 0.85;       // streaming kernels, fraction of HBM bandwidth
  // Collectives over NVLink and over the NICs, fractions of line rate: the collective model's own
  // defaults (collective_params.hpp gives their sources).
  double nvlink = coll::AlgorithmEfficiency{}.ring;
  double nic = coll::AlgorithmEfficiency{}.nic;
};

struct AcceleratorSpec {
  std::string name;    // "h100-sxm"
  std::string source;  // the public documents the figures come from
  // Dense peak FLOP/s per precision (index: Precision); 0 where the precision is unsupported.
  std::array<double, kPrecisions> peak_flops{};
  double hbm_bytes = 0;        // capacity: the vendor's "80GB" read as GiB, as the HBM stacks carry it
  double hbm_bytes_per_s = 0;  // peak bandwidth
  // HBM a training or serving process cannot use for its tensors: what the driver keeps back,
  // the CUDA context and loaded kernels, cuBLAS workspaces, NCCL's channel buffers, and the
  // caching allocator's fragmentation (docs/hardware.md, "Runtime reserve").
  double runtime_reserve_bytes = 0;
  double tdp_watts = 0;
  int compute_units = 0;  // SMs (NVIDIA) or CUs (AMD): how many tiles of a GEMM run at once
  DefaultEfficiencies efficiency;
  std::string efficiency_source;  // where the efficiencies come from
  // A fixed time every transformer layer adds to a serving iteration beyond its kernels: 0 for a
  // GPU (its fixed costs are the kernels' overheads); a wafer's dataflow latency, the time a
  // token's activations take to cross the wafer's mesh through one layer
  // (models/workloads/wafer/wafer_serving.hpp).
  double layer_latency_s = 0;

  double peak(Precision p) const { return peak_flops[static_cast<std::size_t>(p)]; }
};

// A scale-out switch (for counts, power and cost; latency feeds the fabric's links).
struct SwitchSpec {
  std::string name;  // "quantum-2-ndr"
  std::string source;
  int radix = 0;                // ports
  double port_bytes_per_s = 0;  // per port, per direction
  double latency_ns = 0;        // port to port
  double watts = 0;             // typical power
};

}  // namespace fathom::hw
