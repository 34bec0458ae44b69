// A wafer-scale system for the tests: a CS-3's SRAM, its bandwidth and I/O (the catalog's
// figures), with round numbers for the figures Cerebras does not publish.
#pragma once

#include "models/hardware/wafer_system.hpp"

namespace fathom::test {

inline hw::WaferSystemSpec test_wafer() {
  hw::WaferSystemSpec s;
  s.name = "test-system";
  s.sram_bytes = 44e9;
  s.sram_bytes_per_s = 21e15;
  s.peak_dense_flops = 10e15;
  s.compute_efficiency = 0.5;
  s.sram_efficiency = 0.8;
  s.layer_latency_s = 10e-6;
  s.io_bytes_per_s = 150e9;
  return s;
}

}  // namespace fathom::test
