// The declared parameters of an accelerator (hw::AcceleratorSpec and its DefaultEfficiencies;
// models/params/parameter.hpp): the scalar keys of an accelerator catalog entry, of a scenario's
// `hardware.accelerator` override and of a calibrated profile's `accelerator:` section. The GEMM
// curve and tile model (`efficiency.gemm_curve`, `efficiency.gemm_tiles`) are read beside them.
#pragma once

#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/params/parameter.hpp"

namespace fathom::hw {

// peak_*, hbm, runtime_reserve, hbm_bandwidth, tdp, compute_units.
const std::vector<params::Parameter<AcceleratorSpec>>& accelerator_parameters();
// Under `efficiency`: hbm, attention, kernel_overhead, gemm_max, nvlink, nic (the order a
// calibrated profile writes the fitted ones).
const std::vector<params::Parameter<DefaultEfficiencies>>& efficiency_parameters();
// Under `efficiency.gemm_tiles` (every key required when the mapping is given).
const std::vector<params::Parameter<GemmTiles>>& gemm_tiles_parameters();
// Under `efficiency.memory_kernels.<kernel>`: launch, bandwidth, min (every key required).
const std::vector<params::Parameter<MemoryKernelCost>>& memory_kernel_parameters();
// A switch catalog entry: radix, port_bandwidth, latency, power.
const std::vector<params::Parameter<SwitchSpec>>& switch_parameters();

}  // namespace fathom::hw
