// The time of one GEMM of a given shape: the tile model that `fathom calibrate` fits to a GEMM
// sweep (calibrate/fit/gemm_fit.hpp) and the step model times every shaped GEMM with.
//
// A GEMM (m, n, k) x batch on an accelerator with `sms` streaming multiprocessors, dense peak P
// (FLOP/s) at the GEMM's data type and HBM bandwidth B moves
//   bytes = batch (input_bytes (m k + k n) + output_bytes m n)
// and runs one of several kernels; the library's heuristic picks the fastest, so the model takes
// the minimum over the candidates:
//   - wave-quantised tilings (tm, tn) in {(128,128), (128,256), (256,128)}: tiles =
//     batch ceil(m/tm) ceil(n/tn), waves = ceil(tiles/sms), compute = waves sms tm tn k 2 /
//     (P gemm_max) + waves wave_overhead_s (a partly filled last wave costs a full one);
//   - stream-K: the 128x128 tiles' work spread over the SMs without wave quantisation,
//     compute = tiles 128 128 k 2 / (P gemm_max stream_k_efficiency) + 2 wave_overhead_s (the
//     split work's fix-up pass);
//   - each candidate takes max(compute, bytes / (B hbm_fraction)) (a roofline whose memory side
//     is what a GEMM's own access pattern streams, fitted: below what a copy kernel streams);
//   - a shape with m, n or k off the 16-byte vector (8 fp16 or 16 fp8 elements) cannot use
//     16-byte operand loads; its kernels' compute runs at unaligned_efficiency of the aligned rate
//     (NVIDIA's matrix-multiplication performance guide: dimensions should be multiples of 16
//     bytes for Tensor Core efficiency; how much a library loses varies with its version);
//   time = launch_s + min over candidates.
// A square sweep cannot tell these apart from a curve in FLOPs; a layer's GEMMs can: a narrow
// one (n or k of a head dimension, 64-192) is bound by its traffic long before its FLOPs say so.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/hardware/accelerator.hpp"

namespace fathom::compute {

// Elements of `input_bytes` each in the smallest whole number of 16-byte vectors: 8 fp16, 16 fp8,
// 32 fp4, 64 fp6 (48 bytes). std::invalid_argument when not positive.
std::int64_t gemm_vector_elements(double input_bytes);
// Every one of m, n and k is a multiple of gemm_vector_elements(input_bytes).
bool gemm_aligned(std::int64_t m, std::int64_t n, std::int64_t k, double input_bytes);

// The kernel the model picks for a shape.
enum class GemmKernel { tile_128x128, tile_128x256, tile_256x128, stream_k };
std::string_view gemm_kernel_name(GemmKernel kernel);  // "128x128", "128x256", "256x128", "stream-K"

struct GemmEstimate {
  double seconds = 0;
  GemmKernel kernel = GemmKernel::tile_128x128;
  bool memory_bound = false;  // the chosen kernel's time is its HBM traffic's
  bool aligned = true;        // gemm_aligned(): else compute ran at unaligned_efficiency
};

// The model with plain parameters.
// The fitted figures (hw::GemmTileCosts, gemm_max of peak_flops) and the accelerator's.
struct GemmModel : hw::GemmTileCosts {
  int sms = 0;
  double peak_flops = 0;  // dense, at the data type
  double hbm_bytes_per_s = 0;
  double input_bytes = 2, output_bytes = 2;

  GemmEstimate estimate(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
  double seconds(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
  // 2 m n k batch / seconds, in TFLOP/s (the sweeps' unit).
  double tflops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) const;
};

// The model of `accelerator`'s GEMMs at `precision` from its profile's gemm_tiles, or at BF16 from
// its gemm_tiles_bf16 where that is set (one of the two must be). At the tiles' own precision the
// fitted gemm_max is used as it is.
// At another precision (BF16 GEMMs on a part whose only sweep is FP8; TF32, FP32) the tile costs, the traffic fraction
// the traffic fraction and the stream-K and alignment factors are assumed to carry over and the full-wave rate is
// scaled so that a large square GEMM (16384^3) reaches the profile's gemm_max of that peak, the
// same rule the square curve follows. A precision without a peak runs at BF16 (FP8 on A100).
// Operands are 1 byte at FP8, 2 at BF16, 4 at TF32 and FP32; outputs 2, 2, 4, 4.
GemmModel gemm_model(const hw::AcceleratorSpec& accelerator, hw::Precision precision);

}  // namespace fathom::compute
