// What the serving tests share: an accelerator on a plain roofline (every efficiency 1, no
// overheads, no GEMM curve or tiles), so that a closed form can be written out by hand, and a
// small Llama-shaped model (4 layers, GQA with 2 KV heads).
#pragma once

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/transformer.hpp"

namespace fathom::test {

inline hw::AcceleratorSpec plain_accelerator() {
  hw::AcceleratorSpec a;
  a.name = "plain";
  a.peak_flops[static_cast<std::size_t>(hw::Precision::kBf16)] = 1e15;
  a.peak_flops[static_cast<std::size_t>(hw::Precision::kFp8)] = 2e15;
  a.hbm_bytes = 80.0 * (1 << 30);
  a.hbm_bytes_per_s = 2e12;
  a.efficiency.gemm_max = 1;
  a.efficiency.kernel_overhead_s = 0;
  a.efficiency.attention = 1;
  a.efficiency.hbm = 1;
  return a;
}

// The plain accelerator a hundred times slower, so that a burst outlasts several of an
// autoscaler's sync periods.
inline hw::AcceleratorSpec slow_accelerator() {
  hw::AcceleratorSpec a = plain_accelerator();
  a.hbm_bytes_per_s /= 100;
  for (double& peak : a.peak_flops) peak /= 100;
  return a;
}

inline train::TransformerSpec small_model() {
  train::TransformerSpec m;
  m.name = "small";
  m.layers = 4;
  m.hidden = 1024;
  m.ffn_hidden = 4096;
  m.heads = 8;
  m.kv_heads = 2;
  m.vocab = 32000;
  m.max_sequence = 8192;
  m.mlp = train::MlpKind::kSwiGlu;
  m.position = train::PositionKind::kRotary;
  return m;
}

}  // namespace fathom::test
