#include "models/workloads/wafer/wafer_serving.hpp"

#include <string>

#include "models/params/parameter_text.hpp"

namespace fathom::wafer {

hw::AcceleratorSpec as_accelerator(const hw::WaferSystemSpec& system) {
  hw::AcceleratorSpec a;
  a.name = system.name;
  a.source = system.source;
  a.peak_flops[static_cast<std::size_t>(hw::Precision::kBf16)] = system.peak_dense_flops;
  a.hbm_bytes = system.sram_bytes;
  a.hbm_bytes_per_s = system.sram_bytes_per_s;
  a.runtime_reserve_bytes = 0;
  a.tdp_watts = system.power_w;
  a.compute_units = 0;
  a.efficiency.gemm_max = system.compute_efficiency;
  a.efficiency.attention = system.compute_efficiency;
  a.efficiency.hbm = system.sram_efficiency;
  a.efficiency.kernel_overhead_s = 0;
  a.efficiency.gemm_curve.clear();
  a.efficiency.gemm_tiles = {};
  a.efficiency_source = "the scenario's compute_efficiency and sram_efficiency (not published by the vendor)";
  a.layer_latency_s = system.layer_latency_s;
  return a;
}

topo::ClusterSpec serving_cluster(int systems, int group, const hw::WaferSystemSpec& system,
                                  std::int64_t hop_latency_ns) {
  topo::ClusterSpec c;
  c.nodes = systems / group;
  c.node.gpus = group;
  c.node.nics = group;
  c.node.nvswitches = 1;
  c.node.nvlink_bytes_per_s = system.io_bytes_per_s;
  c.node.nvlink_latency_ns = hop_latency_ns;
  c.node.pcie_bytes_per_s = system.io_bytes_per_s;
  c.node.pcie_latency_ns = 0;
  c.node.nic_bytes_per_s = system.io_bytes_per_s;
  c.fabric.kind = topo::FabricKind::kFatTree;
  c.fabric.tiers = 2;
  c.fabric.hosts_per_leaf = systems;
  c.fabric.leaves = 1;
  c.fabric.spines = 1;
  c.fabric.tier = {{system.io_bytes_per_s, hop_latency_ns}, {system.io_bytes_per_s, hop_latency_ns}};
  return c;
}

std::optional<sim::SpecViolation> serving_violation(const hw::WaferSystemSpec& s) {
  using V = sim::SpecViolation;
  const std::string not_public = "; the catalog entry has none, so the scenario must supply it (docs/wafer.md)";
  if (!(s.peak_dense_flops > 0)) {
    return V{"cluster.system.peak_dense", "the system's dense FP16/BF16 FLOP rate", "0",
             "no dense figure is published for " + s.name + not_public};
  }
  for (auto [key, value] :
       {std::pair{"compute_efficiency", s.compute_efficiency}, {"sram_efficiency", s.sram_efficiency}}) {
    if (!(value > 0) || value > 1) {
      return V{std::string("cluster.system.") + key, "a share above 0 and at most 1", params::number_text(value),
               "the share a layer reaches is not published" + not_public};
    }
  }
  if (!(s.layer_latency_s > 0)) {
    return V{"cluster.system.layer_latency", "the time a token takes to cross one layer on the wafer", "0",
             "it is not published" + not_public};
  }
  if (!(s.sram_bytes_per_s > 0)) return V{"cluster.system.sram_bandwidth", "a positive rate", "0"};
  if (!(s.io_bytes_per_s > 0)) return V{"cluster.system.io_bandwidth", "a positive rate", "0"};
  return std::nullopt;
}

int fewest_wafers(const infer::ServingSpec& serving, const train::TransformerSpec& model,
                  const hw::AcceleratorSpec& wafer) {
  infer::ServingSpec trial = serving;
  for (trial.pp = 1; trial.pp < model.layers; ++trial.pp) {
    if (infer::kv_budget(trial, model, wafer).blocks > 0) return trial.pp;
  }
  return model.layers;
}

}  // namespace fathom::wafer
