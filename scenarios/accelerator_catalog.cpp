#include "scenarios/accelerator_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "models/hardware/accelerator_parameters.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kEfficiencyExpected = "a fraction above 0 and at most 1, such as 0.8 or 80%";

constexpr std::string_view kGemmCurveExpected =
    "none, or a mapping of precision (bf16 or fp8) and points ([FLOPs, fraction] pairs, FLOPs increasing)";

// `gemm_curve`: `none` (no curve: GEMMs use gemm_max and kernel_overhead), or
// {precision: bf16|fp8, points: [[FLOPs, fraction], ...]} with FLOPs strictly increasing and
// fractions above 0. Replaces the whole curve.
void read_gemm_curve(const ValueReader& value, hw::DefaultEfficiencies& e) {
  if (value.is_scalar() && value.node().Scalar() == "none") {
    e.gemm_curve.clear();
    return;
  }
  if (!value.is_map()) value.fail(std::string(kGemmCurveExpected));
  MapReader map = value.map();
  map.declare({"precision", "points"});
  const std::string precision = map.one_of("precision", {"bf16", "fp8"});
  const ListReader points = map.list("points");
  map.finish();
  if (points.empty()) points.fail("at least one [FLOPs, fraction] point");
  std::vector<hw::GemmPoint> curve;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ValueReader item = points.at(i);
    constexpr std::string_view kPoint = "a point [FLOPs, fraction], such as [2147483648, 0.38]";
    if (!item.is_list()) item.fail(std::string(kPoint));
    const ListReader pair = item.list();
    if (pair.size() != 2) item.fail(std::string(kPoint));
    const ValueReader flops_value = pair.at(0);
    const ValueReader fraction_value = pair.at(1);
    const auto flops = static_cast<double>(flops_value.count(Sign::kPositive));
    if (!curve.empty() && !(flops > curve.back().flops)) {
      flops_value.fail("FLOPs above the previous point's (points sorted by increasing FLOPs)");
    }
    const double fraction = fraction_value.fraction();
    if (!(fraction > 0)) fraction_value.fail(std::string(kEfficiencyExpected));
    curve.push_back({flops, fraction});
  }
  e.gemm_curve = std::move(curve);
  e.gemm_curve_precision = precision == "fp8" ? hw::Precision::kFp8 : hw::Precision::kBf16;
}

constexpr std::string_view kGemmTilesExpected =
    "none, or a mapping of precision (bf16 or fp8), gemm_max, launch, wave_overhead, hbm_fraction, "
    "stream_k_efficiency and unaligned_efficiency";

// `gemm_tiles`: `none` (GEMMs of known shape use the curve too), or the tile model's fitted
// parameters (models/compute/gemm_tiles.hpp), every key required. Replaces the whole model.
hw::GemmTiles read_gemm_tiles(const ValueReader& value) {
  if (value.is_scalar() && value.node().Scalar() == "none") return {};
  if (!value.is_map()) value.fail(std::string(kGemmTilesExpected));
  MapReader map = value.map();
  hw::GemmTiles t;
  t.present = true;
  read_declared(map, hw::gemm_tiles_parameters(), t, {}, true);
  map.finish();
  return t;
}

constexpr std::string_view kMemoryKernelsExpected =
    "a mapping of kernel (norm, rotary, activation, residual) to its launch, bandwidth and min";

// `memory_kernels`: {norm: {launch, bandwidth, min}, ...}, each kernel optional, every key of a
// kernel required; `none` for a kernel removes its measured cost (the generic rate times it).
void read_memory_kernels(const ValueReader& value, hw::DefaultEfficiencies& e) {
  if (!value.is_map()) value.fail(std::string(kMemoryKernelsExpected));
  MapReader map = value.map();
  std::vector<std::string> names;
  for (std::size_t c = 0; c < hw::kMemoryKernels; ++c) {
    names.emplace_back(hw::to_string(static_cast<hw::MemoryKernel>(c)));
  }
  map.declare({"norm", "rotary", "activation", "residual"});  // hw::MemoryKernel's names
  for (std::size_t c = 0; c < hw::kMemoryKernels; ++c) {
    const std::optional<ValueReader> kernel = map.find(names[c]);
    if (!kernel) continue;
    if (kernel->is_scalar() && kernel->node().Scalar() == "none") {
      e.memory_kernels[c] = {};
      continue;
    }
    if (!kernel->is_map()) kernel->fail("none, or a mapping of launch, bandwidth and min");
    MapReader fields = kernel->map();
    hw::MemoryKernelCost cost;
    read_declared(fields, hw::memory_kernel_parameters(), cost, {}, true);
    fields.finish();
    e.memory_kernels[c] = cost;
  }
  map.finish();
}

hw::AcceleratorSpec read_accelerator(MapReader& map, hw::AcceleratorSpec a, bool all) {
  read_declared(map, hw::accelerator_parameters(), a, {}, all);
  MapReader map_of_efficiencies = all ? map.child("efficiency") : map.optional_child("efficiency");
  hw::DefaultEfficiencies& e = a.efficiency;
  read_declared(map_of_efficiencies, hw::efficiency_parameters(), e, {}, all);
  const std::optional<ValueReader> curve =
      all ? std::optional<ValueReader>(map_of_efficiencies.value("gemm_curve", kGemmCurveExpected))
          : map_of_efficiencies.find("gemm_curve");
  if (curve) read_gemm_curve(*curve, e);
  const std::optional<ValueReader> tiles =
      all ? std::optional<ValueReader>(map_of_efficiencies.value("gemm_tiles", kGemmTilesExpected))
          : map_of_efficiencies.find("gemm_tiles");
  if (tiles) e.gemm_tiles = read_gemm_tiles(*tiles);
  // Optional even in a catalog entry: only an entry with a measured operator profile has them.
  if (const std::optional<ValueReader> bf16 = map_of_efficiencies.find("gemm_tiles_bf16")) {
    e.gemm_tiles_bf16 = read_gemm_tiles(*bf16);
    if (e.gemm_tiles_bf16.present && e.gemm_tiles_bf16.precision != hw::Precision::kBf16) {
      bf16->fail("a tile model fitted at precision bf16");
    }
  }
  if (const std::optional<ValueReader> kernels = map_of_efficiencies.find("memory_kernels")) {
    read_memory_kernels(*kernels, e);
  }
  map_of_efficiencies.finish();
  return a;
}

hw::SwitchSpec read_switch(MapReader& map, hw::SwitchSpec s, bool all) {
  read_declared(map, hw::switch_parameters(), s, {}, all);
  return s;
}

constexpr std::string_view kSourceExpected = "a string naming the public documents the figures come from";

std::vector<hw::AcceleratorSpec> parse_accelerators() {
  const Document doc = Document::parse(accelerator_catalog_text(), std::string(kAcceleratorCatalogFile));
  std::vector<hw::AcceleratorSpec> accelerators;
  read_catalog_entries(doc, [&](MapReader& fields, const std::string& name) {
    accelerators.push_back(read_accelerator_entry(fields, name));
  });
  return accelerators;
}

std::vector<hw::SwitchSpec> parse_switches() {
  const Document doc = Document::parse(switch_catalog_text(), std::string(kSwitchCatalogFile));
  std::vector<hw::SwitchSpec> switches;
  read_catalog_entries(
      doc, [&](MapReader& fields, const std::string& name) { switches.push_back(read_switch_entry(fields, name)); });
  return switches;
}

}  // namespace

const std::vector<hw::AcceleratorSpec>& catalog_accelerators() {
  static const std::vector<hw::AcceleratorSpec> accelerators = parse_accelerators();
  return accelerators;
}

const hw::AcceleratorSpec* find_catalog_accelerator(std::string_view name) {
  return find_in_catalogs(catalog_accelerators(), &UserCatalog::accelerators, name);
}

std::vector<std::string> catalog_accelerator_names() {
  return names_in_catalogs(catalog_accelerators(), &UserCatalog::accelerators);
}

const hw::AcceleratorSpec& catalog_accelerator(const ValueReader& value) {
  return named_in_catalogs(catalog_accelerators(), &UserCatalog::accelerators, value,
                           "an accelerator of the hardware catalog");
}

hw::AcceleratorSpec read_accelerator_entry(MapReader& fields, const std::string& name) {
  hw::AcceleratorSpec a;
  if (auto b = fields.find("base")) {
    a = catalog_accelerator(*b);
    a.source = fields.optional<std::string>("source", a.source);
    a = read_accelerator(fields, std::move(a), false);
    a.efficiency_source = fields.optional<std::string>("efficiency_source", a.efficiency_source);
  } else {
    a.source = fields.required<std::string>("source", kSourceExpected);
    a = read_accelerator(fields, std::move(a), true);
    a.efficiency_source =
        fields.required<std::string>("efficiency_source", "a string saying where each default efficiency comes from");
  }
  a.name = name;
  return a;
}

hw::AcceleratorSpec read_accelerator_fields(MapReader& map, hw::AcceleratorSpec base) {
  return read_accelerator(map, std::move(base), false);
}

const std::vector<hw::SwitchSpec>& catalog_switches() {
  static const std::vector<hw::SwitchSpec> switches = parse_switches();
  return switches;
}

const hw::SwitchSpec* find_catalog_switch(std::string_view name) {
  return find_in_catalogs(catalog_switches(), &UserCatalog::switches, name);
}

std::vector<std::string> catalog_switch_names() {
  return names_in_catalogs(catalog_switches(), &UserCatalog::switches);
}

const hw::SwitchSpec& catalog_switch(const ValueReader& value) {
  return named_in_catalogs(catalog_switches(), &UserCatalog::switches, value, "a switch of the hardware catalog");
}

hw::SwitchSpec read_switch_entry(MapReader& fields, const std::string& name) {
  hw::SwitchSpec s;
  if (auto b = fields.find("base")) {
    s = catalog_switch(*b);
    s.source = fields.optional<std::string>("source", s.source);
    s = read_switch(fields, std::move(s), false);
  } else {
    s.source = fields.required<std::string>("source", kSourceExpected);
    s = read_switch(fields, std::move(s), true);
  }
  s.name = name;
  return s;
}

void read_catalog_entries(const Document& doc, const std::function<void(MapReader&, const std::string&)>& read) {
  MapReader root = doc.root();
  for (const auto& item : doc.tree()) {
    const std::string name = item.first.Scalar();
    MapReader fields = root.child(name);
    read(fields, name);
    fields.finish();
  }
  root.finish();
}

hw::SwitchSpec read_switch_fields(MapReader& map, hw::SwitchSpec base) {
  return read_switch(map, std::move(base), false);
}

}  // namespace fathom::scenario
