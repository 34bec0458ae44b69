// A wafer-scale system and cluster for the tests: a CS-3's SRAM, its bandwidth and I/O (the
// catalog's figures), with round numbers for the figures Cerebras does not publish.
#pragma once

#include "models/hardware/wafer_system.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"

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

// `systems` of them under the catalog's SwarmX shape (fan-out 4, 1.2 Tb/s, 1 us, 1 MiB chunks) and
// a 12 TB MemoryX streaming and updating at 1.2 Tb/s, drawing 20 kW.
inline wafer::WaferCluster test_cluster(int systems) {
  wafer::WaferCluster c;
  c.systems = systems;
  c.system = test_wafer();
  c.memoryx.name = "memoryx-test";
  c.memoryx.capacity_bytes = 12e12;
  c.memoryx.bytes_per_s = 150e9;
  c.memoryx.update_bytes_per_s = 150e9;
  c.memoryx.power_w = 20e3;
  c.swarmx.fan_out = 4;
  c.swarmx.link_bytes_per_s = 150e9;
  c.swarmx.hop_latency_ns = 1000;
  c.swarmx.chunk_bytes = 1 << 20;
  return c;
}

}  // namespace fathom::test
