// `fathom catalog list` and `fathom catalog show NAME`: what a scenario can name (accelerators,
// switches, nodes, models), built-in and from the --catalog folders, each with the file it comes
// from; and the `--catalog DIR` option every command accepts.
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "models/workloads/training/transformer.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/model_catalog.hpp"
#include "scenarios/units.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

std::vector<std::string>& folders() {
  static std::vector<std::string> f;
  return f;
}

// The entry's source, cut to one terminal line.
std::string short_source(const std::string& source) {
  constexpr std::size_t kWidth = 60;
  return source.size() <= kWidth ? source : source.substr(0, kWidth - 3) + "...";
}

void list_kind(const char* title, const char* kind, const std::vector<std::string>& names,
               const std::function<std::string(const std::string&)>& source_of) {
  std::printf("%s\n", title);
  for (const auto& n : names) {
    std::printf("  %-22s %-48s %s\n", n.c_str(), scenario::catalog_origin(kind, n).c_str(),
                short_source(source_of(n)).c_str());
  }
}

void run_list() {
  list_kind("accelerators", "accelerator", scenario::catalog_accelerator_names(),
            [](const std::string& n) { return scenario::find_catalog_accelerator(n)->source; });
  list_kind("switches", "switch", scenario::catalog_switch_names(),
            [](const std::string& n) { return scenario::find_catalog_switch(n)->source; });
  list_kind("nodes", "node", scenario::catalog_node_names(),
            [](const std::string& n) { return scenario::find_catalog_node(n)->source; });
  list_kind("models", "model", scenario::catalog_model_names(),
            [](const std::string& n) { return scenario::find_catalog_model(n)->source; });
}

std::string tflops(double flops) { return std::to_string(static_cast<long long>(flops / 1e12 + 0.5)) + " TFLOP/s"; }

void show_accelerator(const hw::AcceleratorSpec& a) {
  std::printf("  peak fp32 / tf32 / bf16 / fp8   %s / %s / %s / %s (dense)\n",
              tflops(a.peak(hw::Precision::kFp32)).c_str(), tflops(a.peak(hw::Precision::kTf32)).c_str(),
              tflops(a.peak(hw::Precision::kBf16)).c_str(), tflops(a.peak(hw::Precision::kFp8)).c_str());
  std::printf("  hbm                             %s at %s, runtime reserve %s\n",
              scenario::format_bytes(static_cast<std::int64_t>(a.hbm_bytes)).c_str(),
              scenario::format_bytes_per_s(a.hbm_bytes_per_s).c_str(),
              scenario::format_bytes(static_cast<std::int64_t>(a.runtime_reserve_bytes)).c_str());
  std::printf("  tdp, compute units              %.0f W, %d\n", a.tdp_watts, a.compute_units);
  const hw::DefaultEfficiencies& e = a.efficiency;
  std::printf("  efficiency                      gemm_max %.4g, attention %.4g, hbm %.4g, nvlink %.4g, nic %.4g\n",
              e.gemm_max, e.attention, e.hbm, e.nvlink, e.nic);
  std::printf("  gemm_curve                      %s\n", e.gemm_curve.empty()
                                                            ? "none"
                                                            : (std::to_string(e.gemm_curve.size()) + " points, " +
                                                               std::string(hw::to_string(e.gemm_curve_precision)))
                                                                  .c_str());
  if (e.gemm_tiles.present) {
    const hw::GemmTiles& t = e.gemm_tiles;
    std::printf(
        "  gemm_tiles                      %s: gemm_max %.4g, launch %.0f ns, wave_overhead %.0f ns, hbm_fraction "
        "%.4g, stream_k %.4g, unaligned %.4g\n",
        std::string(hw::to_string(t.precision)).c_str(), t.gemm_max, t.launch_s * 1e9, t.wave_overhead_s * 1e9,
        t.hbm_fraction, t.stream_k_efficiency, t.unaligned_efficiency);
  } else {
    std::printf("  gemm_tiles                      none\n");
  }
  std::printf("  efficiency_source               %s\n", a.efficiency_source.c_str());
}

void show_node(const scenario::CatalogNode& n) {
  const topo::NodeSpec& s = n.node;
  std::printf("  accelerator                     %s\n", n.accelerator.c_str());
  std::printf("  gpus, nics                      %d, %d (NIC %s)\n", s.gpus, s.nics,
              scenario::format_bytes_per_s(s.nic_bytes_per_s).c_str());
  std::printf("  nvlink                          %s per GPU, %lld ns; %d NVSwitches%s; domain of %d node(s)\n",
              scenario::format_bytes_per_s(s.nvlink_bytes_per_s).c_str(), static_cast<long long>(s.nvlink_latency_ns),
              s.nvswitches, s.nvls ? ", NVLS" : "", s.nvlink_domain_nodes);
  std::printf("  pcie                            %s, %lld ns\n",
              scenario::format_bytes_per_s(s.pcie_bytes_per_s).c_str(), static_cast<long long>(s.pcie_latency_ns));
  std::printf("  local nvme                      %s\n",
              scenario::format_bytes(static_cast<std::int64_t>(s.local_nvme_bytes)).c_str());
}

void show_model(const train::TransformerSpec& m) {
  std::printf("  layers, hidden, ffn_hidden      %d, %d, %d\n", m.layers, m.hidden, m.ffn_hidden);
  std::printf("  heads / kv_heads                %d / %d\n", m.heads, m.kv_heads);
  std::printf("  vocab, max_sequence             %d, %d\n", m.vocab, m.max_sequence);
  std::printf("  mlp, position, tied             %s, %s, %s\n", m.mlp == train::MlpKind::kGelu ? "gelu" : "swiglu",
              m.position == train::PositionKind::kLearned ? "learned" : "rotary", m.tied_embeddings ? "yes" : "no");
  std::printf("  experts, top_k                  %d, %d\n", m.experts, m.top_k);
  std::printf("  parameters                      %.4g (active %.4g)\n", train::parameter_count(m),
              train::active_parameter_count(m));
}

void header(const char* kind, const std::string& name, const std::string& source) {
  std::printf("%s %s\n  file                            %s\n  source                          %s\n", kind, name.c_str(),
              scenario::catalog_origin(kind, name).c_str(), source.c_str());
}

void run_show(const std::string& name) {
  bool found = false;
  if (const auto* a = scenario::find_catalog_accelerator(name)) {
    header("accelerator", name, a->source);
    show_accelerator(*a);
    found = true;
  }
  if (const auto* s = scenario::find_catalog_switch(name)) {
    header("switch", name, s->source);
    std::printf("  radix, port, latency, power     %d, %s, %.0f ns, %.0f W\n", s->radix,
                scenario::format_bytes_per_s(s->port_bytes_per_s).c_str(), s->latency_ns, s->watts);
    found = true;
  }
  if (const auto* n = scenario::find_catalog_node(name)) {
    header("node", name, n->source);
    show_node(*n);
    found = true;
  }
  if (const auto* m = scenario::find_catalog_model(name)) {
    header("model", name, m->source);
    show_model(*m);
    found = true;
  }
  if (!found) {
    std::vector<std::string> all = scenario::catalog_accelerator_names();
    for (const auto& list :
         {scenario::catalog_switch_names(), scenario::catalog_node_names(), scenario::catalog_model_names()}) {
      all.insert(all.end(), list.begin(), list.end());
    }
    const std::string hint = scenario::did_you_mean(name, all);
    throw std::invalid_argument("no catalog entry named \"" + name + "\" (`fathom catalog list` lists them)" +
                                (hint.empty() ? "" : "; " + hint));
  }
}

}  // namespace

void add_catalog_option(CLI::App& app) {
  app.add_option("--catalog", folders(),
                 "a user catalog folder (accelerators.yaml, switches.yaml, nodes.yaml, models.yaml), searched "
                 "before the built-in catalog (repeatable; docs/hardware.md, \"User catalogs\")")
      ->check(CLI::ExistingDirectory);
}

const std::vector<std::string>& catalog_folders() { return folders(); }

void add_catalog_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("catalog", "list the catalog's accelerators, switches, nodes and models, or show one");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "every entry, with the file it comes from and its source");
  list->callback([] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_list();
  });
  auto name = std::make_shared<std::string>();
  CLI::App* show = cmd->add_subcommand("show", "one entry's figures, its file and its source");
  show->add_option("name", *name, "the entry's name")->required();
  show->callback([name] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_show(*name);
  });
}

}  // namespace fathom::cli
