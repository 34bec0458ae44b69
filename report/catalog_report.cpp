#include "report/catalog_report.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/params/parameter_text.hpp"
#include "models/workloads/training/transformer.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/model_catalog.hpp"
#include "scenarios/storage_catalog.hpp"
#include "scenarios/units.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::report {

namespace {

// The entry's source, cut to one terminal line.
std::string short_source(const std::string& source) {
  constexpr std::size_t kWidth = 60;
  return source.size() <= kWidth ? source : source.substr(0, kWidth - 3) + "...";
}

void list_kind(std::FILE* out, const char* title, const char* kind, const std::vector<std::string>& names,
               const std::function<std::string(const std::string&)>& source_of) {
  std::fprintf(out, "%s\n", title);
  for (const auto& n : names) {
    std::fprintf(out, "  %-22s %-48s %s\n", n.c_str(), scenario::catalog_origin(kind, n).c_str(),
                 short_source(source_of(n)).c_str());
  }
}

}  // namespace

void write_catalog_list(std::FILE* out) {
  list_kind(out, "accelerators", "accelerator", scenario::catalog_accelerator_names(),
            [](const std::string& n) { return scenario::find_catalog_accelerator(n)->source; });
  list_kind(out, "switches", "switch", scenario::catalog_switch_names(),
            [](const std::string& n) { return scenario::find_catalog_switch(n)->source; });
  list_kind(out, "nodes", "node", scenario::catalog_node_names(),
            [](const std::string& n) { return scenario::find_catalog_node(n)->source; });
  list_kind(out, "models", "model", scenario::catalog_model_names(),
            [](const std::string& n) { return scenario::find_catalog_model(n)->source; });
  list_kind(out, "storage tiers", "storage", scenario::catalog_tier_names(),
            [](const std::string& n) { return scenario::find_catalog_tier(n)->source; });
}

namespace {

std::string tflops(double flops) { return std::to_string(static_cast<long long>(flops / 1e12 + 0.5)) + " TFLOP/s"; }

void show_accelerator(std::FILE* out, const hw::AcceleratorSpec& a) {
  std::fprintf(out, "  peak fp32 / tf32 / bf16 / fp8   %s / %s / %s / %s (dense)\n",
               tflops(a.peak(hw::Precision::kFp32)).c_str(), tflops(a.peak(hw::Precision::kTf32)).c_str(),
               tflops(a.peak(hw::Precision::kBf16)).c_str(), tflops(a.peak(hw::Precision::kFp8)).c_str());
  std::fprintf(out, "  hbm                             %s at %s, runtime reserve %s\n",
               scenario::format_bytes(static_cast<std::int64_t>(a.hbm_bytes)).c_str(),
               scenario::format_bytes_per_s(a.hbm_bytes_per_s).c_str(),
               scenario::format_bytes(static_cast<std::int64_t>(a.runtime_reserve_bytes)).c_str());
  std::fprintf(out, "  tdp, compute units              %.0f W, %d\n", a.tdp_watts, a.compute_units);
  const hw::DefaultEfficiencies& e = a.efficiency;
  std::fprintf(out,
               "  efficiency                      gemm_max %.4g, attention %.4g, hbm %.4g, nvlink %.4g, nic %.4g\n",
               e.gemm_max, e.attention, e.hbm, e.nvlink, e.nic);
  std::fprintf(out, "  gemm_curve                      %s\n",
               e.gemm_curve.empty() ? "none"
                                    : (std::to_string(e.gemm_curve.size()) + " points, " +
                                       std::string(hw::to_string(e.gemm_curve_precision)))
                                          .c_str());
  if (e.gemm_tiles.present) {
    const hw::GemmTiles& t = e.gemm_tiles;
    std::fprintf(
        out,
        "  gemm_tiles                      %s: gemm_max %.4g, launch %.0f ns, wave_overhead %.0f ns, hbm_fraction "
        "%.4g, stream_k %.4g, unaligned %.4g\n",
        std::string(hw::to_string(t.precision)).c_str(), t.gemm_max, t.launch_s * 1e9, t.wave_overhead_s * 1e9,
        t.hbm_fraction, t.stream_k_efficiency, t.unaligned_efficiency);
  } else {
    std::fprintf(out, "  gemm_tiles                      none\n");
  }
  std::fprintf(out, "  efficiency_source               %s\n", a.efficiency_source.c_str());
}

void show_node(std::FILE* out, const scenario::CatalogNode& n) {
  const topo::NodeSpec& s = n.node;
  std::fprintf(out, "  accelerator                     %s\n", n.accelerator.c_str());
  std::fprintf(out, "  gpus, nics                      %d, %d (NIC %s)\n", s.gpus, s.nics,
               scenario::format_bytes_per_s(s.nic_bytes_per_s).c_str());
  std::fprintf(out, "  nvlink                          %s per GPU, %lld ns; %d NVSwitches%s; domain of %d node(s)\n",
               scenario::format_bytes_per_s(s.nvlink_bytes_per_s).c_str(), static_cast<long long>(s.nvlink_latency_ns),
               s.nvswitches, s.nvls ? ", NVLS" : "", s.nvlink_domain_nodes);
  std::fprintf(out, "  pcie                            %s, %lld ns\n",
               scenario::format_bytes_per_s(s.pcie_bytes_per_s).c_str(), static_cast<long long>(s.pcie_latency_ns));
  std::fprintf(out, "  local nvme                      %s\n",
               scenario::format_bytes(static_cast<std::int64_t>(s.local_nvme_bytes)).c_str());
}

void show_model(std::FILE* out, const train::TransformerSpec& m) {
  std::fprintf(out, "  layers, hidden, ffn_hidden      %d, %d, %d\n", m.layers, m.hidden, m.ffn_hidden);
  std::fprintf(out, "  heads / kv_heads                %d / %d\n", m.heads, m.kv_heads);
  std::fprintf(out, "  vocab, max_sequence             %d, %d\n", m.vocab, m.max_sequence);
  std::fprintf(out, "  mlp, position, tied             %s, %s, %s\n",
               m.mlp == train::MlpKind::kGelu ? "gelu" : "swiglu",
               m.position == train::PositionKind::kLearned ? "learned" : "rotary", m.tied_embeddings ? "yes" : "no");
  std::fprintf(out, "  experts, top_k                  %d, %d\n", m.experts, m.top_k);
  if (train::has_mixed_layers(m)) {
    std::fprintf(out, "  moe_every, dense_ffn, shared    %d, %d, %d (%d MoE and %d dense layers)\n", m.moe_every,
                 train::dense_ffn(m), m.shared_experts, train::moe_layer_count(m), train::dense_layer_count(m));
  }
  std::fprintf(out, "  parameters                      %.4g (active %.4g)\n", train::parameter_count(m),
               train::active_parameter_count(m));
}

// Every key of the tier as a scenario would write it, then what it derives.
void show_tier(std::FILE* out, const storage::TierSpec& t) {
  for (const auto& p : storage::tier_parameters()) {
    std::fprintf(out, "  %-31s %s\n", std::string(p.key).c_str(),
                 params::readable_text(p.quantity, p.get(t), p.choices).c_str());
  }
  std::fprintf(out, "  %-31s %s read, %s written by clients\n", "derived",
               scenario::format_bytes_per_s(t.read_bytes_per_s).c_str(),
               scenario::format_bytes_per_s(t.client_write_bytes_per_s()).c_str());
}

void header(std::FILE* out, const char* kind, const std::string& name, const std::string& source) {
  std::fprintf(out, "%s %s\n  file                            %s\n  source                          %s\n", kind,
               name.c_str(), scenario::catalog_origin(kind, name).c_str(), source.c_str());
}

}  // namespace

void write_catalog_entry(std::FILE* out, const std::string& name) {
  bool found = false;
  if (const auto* a = scenario::find_catalog_accelerator(name)) {
    header(out, "accelerator", name, a->source);
    show_accelerator(out, *a);
    found = true;
  }
  if (const auto* s = scenario::find_catalog_switch(name)) {
    header(out, "switch", name, s->source);
    std::fprintf(out, "  radix, port, latency, power     %d, %s, %.0f ns, %.0f W\n", s->radix,
                 scenario::format_bytes_per_s(s->port_bytes_per_s).c_str(), s->latency_ns, s->watts);
    found = true;
  }
  if (const auto* n = scenario::find_catalog_node(name)) {
    header(out, "node", name, n->source);
    show_node(out, *n);
    found = true;
  }
  if (const auto* m = scenario::find_catalog_model(name)) {
    header(out, "model", name, m->source);
    show_model(out, *m);
    found = true;
  }
  if (const auto* t = scenario::find_catalog_tier(name)) {
    header(out, "storage", name, t->source);
    show_tier(out, *t);
    found = true;
  }
  if (!found) {
    std::vector<std::string> all = scenario::catalog_accelerator_names();
    for (const auto& list : {scenario::catalog_switch_names(), scenario::catalog_node_names(),
                             scenario::catalog_model_names(), scenario::catalog_tier_names()}) {
      all.insert(all.end(), list.begin(), list.end());
    }
    const std::string hint = scenario::did_you_mean(name, all);
    throw std::invalid_argument("no catalog entry named \"" + name + "\" (`fathom catalog list` lists them)" +
                                (hint.empty() ? "" : "; " + hint));
  }
}

}  // namespace fathom::report
