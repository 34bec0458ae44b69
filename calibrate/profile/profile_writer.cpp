#include "calibrate/profile/profile_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "models/collectives/collective_parameters.hpp"
#include "models/hardware/accelerator_parameters.hpp"
#include "models/params/parameter_text.hpp"
#include "models/storage/storage_tier.hpp"

namespace fathom::calib {

namespace {

// A double as YAML reads it back.
std::string num(double v) { return params::number_text(v); }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A CSV field: quoted, with quotes doubled (RFC 4180).
std::string csv_field(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_quality(std::ostringstream& y, const std::string& indent, const FitResult& r) {
  y << indent << "points: " << r.predicted.size() << "\n";
  y << indent << "r_squared: " << num(r.r_squared) << "\n";
  y << indent << "median_rel_error: " << num(r.median_abs_rel_error) << "\n";
  y << indent << "max_rel_error: " << num(r.max_abs_rel_error) << "\n";
}

void write_parameters(std::ostringstream& y, const std::string& indent, const FitResult& r) {
  y << indent << "parameters:\n";
  for (std::size_t i = 0; i < r.parameters.size(); ++i) {
    const FitParameter& p = r.parameters[i];
    y << indent << "  " << p.name << ": {value: " << num(p.value) << ", sigma: " << num(r.uncertainty[i])
      << ", fitted: " << (p.fixed ? "false" : "true") << (p.unit.empty() ? "" : ", unit: " + quoted(p.unit)) << "}\n";
  }
}

void write_list(std::ostringstream& y, const std::string& indent, const std::string& key,
                const std::vector<std::string>& items) {
  y << indent << key << ": [";
  for (std::size_t i = 0; i < items.size(); ++i) y << (i ? ", " : "") << quoted(items[i]);
  y << "]\n";
}

bool fitted(const CollectiveFit& fit, const std::string& name) {
  for (const auto& f : fit.fitted) {
    if (f == name) return true;
  }
  return false;
}

// The GEMM fit whose curve the profile carries: BF16/FP16 first (the precision gemm_max is
// defined at), else FP8.
const GemmFit* curve_fit(const Calibration& c, std::string& precision) {
  for (const auto& g : c.gemm) {
    if (g.dtype == "bf16" || g.dtype == "fp16") {
      precision = "bf16";
      return &g;
    }
  }
  for (const auto& g : c.gemm) {
    if (g.dtype.rfind("fp8", 0) == 0) {
      precision = "fp8";
      return &g;
    }
  }
  return nullptr;
}

// An operator profile's fit, under accelerator.efficiency (it follows the other efficiencies):
// the BF16 tile model and each memory-bound kernel's cost, under their declared keys.
void write_kernel_fit(std::ostringstream& y, const KernelFit& fit) {
  y << "    gemm_tiles_bf16:  # the tile model fitted on the operator profile's GEMMs (fits.kernels)\n";
  const hw::GemmTiles tiles{static_cast<const hw::GemmTileCosts&>(fit.gemm.model), true, hw::Precision::kBf16};
  for (const auto& p : hw::gemm_tiles_parameters()) {
    y << "      " << p.key << ": " << params::exact_text(p.quantity, p.get(tiles), p.choices) << "\n";
  }
  y << "    memory_kernels:  # each memory-bound kernel's measured cost (fits.kernels)\n";
  for (std::size_t k = 0; k < hw::kMemoryKernels; ++k) {
    y << "      " << hw::to_string(static_cast<hw::MemoryKernel>(k)) << ": {";
    bool first = true;
    for (const auto& p : hw::memory_kernel_parameters()) {
      y << (first ? "" : ", ") << p.key << ": " << params::exact_text(p.quantity, p.get(fit.memory[k]), p.choices);
      first = false;
    }
    y << "}\n";
  }
}

// The node's drives for a scenario's local_nvme tier: the sequential read and write bandwidths and
// the random-read IOPS, each from the fio group with the most I/O in flight.
void write_local_nvme(std::ostringstream& y, const std::vector<StorageFit>& fits) {
  const auto best = [&](const std::string& direction, const std::string& access) -> const StorageFit* {
    const StorageFit* pick = nullptr;
    for (const StorageFit& f : fits) {
      if (f.direction != direction || f.access != access) continue;
      if (pick == nullptr || f.iodepth * f.numjobs > pick->iodepth * pick->numjobs) pick = &f;
    }
    return pick;
  };
  const StorageFit* read = best("read", "sequential");
  const StorageFit* write = best("write", "sequential");
  const StorageFit* random = best("read", "random");
  if (read == nullptr && write == nullptr && random == nullptr) return;
  y << "local_nvme:  # the node's drives, from fio (fits.storage); a scenario's local_nvme tier without bandwidths "
       "takes them\n";
  const auto& declared = storage::tier_parameters();
  const auto line = [&](std::string_view key, double value) {
    const auto* p = params::find(declared, key);
    y << "  " << key << ": " << params::exact_text(p->quantity, value, p->choices) << "\n";
  };
  if (read) line("read_bandwidth", read->max_bandwidth_bytes_per_s);
  if (write) line("write_bandwidth", write->max_bandwidth_bytes_per_s);
  if (random) line("iops", random->max_iops);
}

}  // namespace

std::vector<hw::GemmPoint> gemm_curve_of(const GemmFit& fit) {
  std::vector<hw::GemmPoint> curve;
  for (std::int64_t s = 1024; s <= 32768; s *= 2) {
    const double flops = 2.0 * static_cast<double>(s) * static_cast<double>(s) * static_cast<double>(s);
    double tflops = fit.model.tflops(s, s, s);
    for (const auto& p : fit.points) {
      if (p.m == s && p.n == s && p.k == s && p.batch <= 1) tflops = p.tflops;
    }
    curve.push_back({flops, tflops * 1e12 / fit.model.peak_flops});
  }
  return curve;
}

std::string profile_yaml(const Calibration& c, const SystemFacts& system, const ProfileMeta& meta) {
  std::ostringstream y;
  y << "# fathom calibrated profile: hardware parameters fitted to measurements of one system\n"
       "# (docs/calibration.md). A scenario applies it with `calibration: FILE`; `fathom validate\n"
       "# --profile FILE` compares it with nccl-tests logs. Only fitted parameters are set below;\n"
       "# the rest keep the catalog's values. `fits:` is the report: not read back.\n";
  y << "profile: 1\n";
  y << "system: " << quoted(meta.system) << "\n";
  if (!system.node.empty()) y << "node: " << system.node << "\n";
  y << "created: " << quoted(meta.created) << "\n";
  y << "tool: " << quoted(meta.tool) << "\n";
  y << "sources:\n";
  for (const auto& s : meta.sources) {
    y << "  - {file: " << quoted(s.file) << ", sha256: " << s.sha256 << ", kind: " << s.kind << ", rows: " << s.rows
      << ", used: " << quoted(s.used) << "}\n";
  }

  std::string precision;
  const GemmFit* gemm = curve_fit(c, precision);
  if (gemm || c.hbm || c.attention_fraction || c.kernels) {
    y << "accelerator:\n  base: " << system.accelerator.name << "\n  efficiency:\n";
    // The fitted efficiencies under their declared keys (hw::efficiency_parameters()).
    hw::DefaultEfficiencies fitted;
    std::set<std::string_view> keys;
    if (c.hbm) fitted.hbm = c.hbm->fraction, keys.insert("hbm");
    if (c.attention_fraction) fitted.attention = *c.attention_fraction, keys.insert("attention");
    std::vector<hw::GemmPoint> curve;
    if (gemm) {
      curve = gemm_curve_of(*gemm);
      // As the catalog defines it (scenarios/hardware/accelerators.yaml): the time a 1024^3 GEMM
      // takes beyond its FLOPs at the largest GEMM's rate, here of the fitted model (16384^3).
      const double small = gemm->model.seconds(1024, 1024, 1024);
      const double large_rate = gemm->model.tflops(16384, 16384, 16384) * 1e12;
      fitted.kernel_overhead_s = std::max(0.0, small - 2.0 * 1024 * 1024 * 1024 / large_rate);
      keys.insert("kernel_overhead");
      if (precision == "bf16") fitted.gemm_max = curve.back().fraction, keys.insert("gemm_max");
    }
    for (const auto& p : hw::efficiency_parameters()) {
      if (keys.count(p.key)) y << "    " << p.key << ": " << params::exact_text(p.quantity, p.get(fitted)) << "\n";
    }
    if (gemm) {
      y << "    gemm_curve:  # square GEMMs 1024^3 .. 32768^3: as measured where the sweep has them, else the\n"
           "                 # fitted model's (fits.gemm)\n";
      y << "      precision: " << precision << "\n      points:\n";
      for (const auto& p : curve) y << "        - [" << std::llround(p.flops) << ", " << num(p.fraction) << "]\n";
      if (tile_model_usable(*gemm)) {
        const compute::GemmModel& m = gemm->model;
        y << "    gemm_tiles:  # the fitted tile model (fits.gemm): GEMMs of known shape\n";
        const hw::GemmTiles tiles{static_cast<const hw::GemmTileCosts&>(m), true,
                                  precision == "fp8" ? hw::Precision::kFp8 : hw::Precision::kBf16};
        for (const auto& p : hw::gemm_tiles_parameters()) {
          y << "      " << p.key << ": " << params::exact_text(p.quantity, p.get(tiles), p.choices) << "\n";
        }
      } else {
        y << "    gemm_tiles: none  # the tile fit does not describe this sweep (fits.gemm): the curve times every "
             "GEMM\n";
      }
    }
    if (c.kernels) write_kernel_fit(y, *c.kernels);
  }
  if (c.collectives) {
    const CollectiveFit& f = *c.collectives;
    y << "collectives:\n";
    // Each fitted parameter under its declared key; nested keys ("efficiency.ring") as one flow
    // mapping per parent, after the plain ones (the declaration lists them last).
    std::map<std::string, std::string> nested;
    for (const auto& p : coll::collective_parameters()) {
      if (p.fit_name.empty() || !fitted(f, std::string(p.fit_name))) continue;
      const std::string text = params::exact_text(p.quantity, p.get(f.params), p.choices);
      const std::size_t dot = p.key.find('.');
      if (dot == std::string_view::npos) {
        y << "  " << p.key << ": " << text << "\n";
        continue;
      }
      std::string& group = nested[std::string(p.key.substr(0, dot))];
      group += (group.empty() ? "" : ", ") + std::string(p.key.substr(dot + 1)) + ": " + text;
    }
    for (const auto& [parent, group] : nested) y << "  " << parent << ": {" << group << "}\n";
  }
  write_local_nvme(y, c.storage);

  y << "fits:\n";
  if (c.collectives) {
    y << "  collectives:\n";
    write_quality(y, "    ", c.collectives->result);
    write_parameters(y, "    ", c.collectives->result);
    write_list(y, "    ", "not_identified", c.collectives->not_identified);
  }
  if (!c.gemm.empty()) {
    y << "  gemm:\n";
    for (const auto& g : c.gemm) {
      y << "    " << g.dtype << ":\n";
      write_quality(y, "      ", g.fit);
      write_parameters(y, "      ", g.fit);
      write_list(y, "      ", "not_identified", g.not_identified);
      y << "      compute_units: " << g.model.sms << "\n      peak: " << num(g.model.peak_flops) << "\n";
    }
  }
  if (c.hbm) {
    y << "  hbm:\n    file: " << quoted(c.hbm->file) << "\n    fraction: " << num(c.hbm->fraction)
      << "\n    sigma: " << num(c.hbm->fraction_uncertainty) << "\n    peak: " << num(c.hbm->peak_bytes_per_s) << "\n";
    write_quality(y, "    ", c.hbm->fit);
  }
  if (!c.storage.empty()) {
    y << "  storage:\n";
    for (const auto& s : c.storage) {
      y << "    - {direction: " << s.direction << ", access: " << s.access << ", iodepth: " << s.iodepth
        << ", numjobs: " << s.numjobs << ", max_bandwidth: " << num(s.max_bandwidth_bytes_per_s)
        << ", max_iops: " << num(s.max_iops) << ", bandwidth_from: " << quoted(s.bandwidth_source)
        << ", iops_from: " << quoted(s.iops_source) << ", max_rel_error: " << num(s.fit.max_abs_rel_error) << "}\n";
    }
  }
  if (c.transfer) {
    y << "  transfer:\n    file: " << quoted(c.transfer->file) << "\n    pcie: " << num(c.transfer->pcie_bytes_per_s)
      << "\n";
    if (c.transfer->host_to_device_fraction) {
      y << "    host_to_device_fraction: " << num(*c.transfer->host_to_device_fraction) << "\n";
    }
    if (c.transfer->device_to_host_fraction) {
      y << "    device_to_host_fraction: " << num(*c.transfer->device_to_host_fraction) << "\n";
    }
  }
  if (c.attention_fraction) {
    y << "  attention:\n    file: " << quoted(c.attention_file) << "\n    fraction: " << num(*c.attention_fraction)
      << "\n";
  }
  if (c.kernels) {
    y << "  kernels:\n    file: " << quoted(c.kernels->file) << "\n    gemm:\n";
    write_quality(y, "      ", c.kernels->gemm.fit);
    write_parameters(y, "      ", c.kernels->gemm.fit);
    for (std::size_t k = 0; k < hw::kMemoryKernels; ++k) {
      y << "    " << hw::to_string(static_cast<hw::MemoryKernel>(k)) << ":\n";
      write_quality(y, "      ", c.kernels->memory_fit[k]);
    }
    y << "    held_out:" << (c.kernel_predictions.empty() ? " []" : "") << "\n";
    for (const auto& p : c.kernel_predictions) {
      y << "      - {file: " << quoted(p.file) << ", min_tokens: " << kKernelMinTokens
        << ", gemm_median_rel_error: " << num(p.errors.gemm_median)
        << ", memory_median_rel_error: " << num(p.errors.memory_median)
        << ", layer_median_rel_error: " << num(p.errors.layer_median)
        << ", layer_worst_rel_error: " << num(p.errors.layer_worst) << "}\n";
    }
  }
  if (c.held_out) {
    y << "  held_out:\n";
    write_quality(y, "    ", *c.held_out);
  }
  write_list(y, "  ", "notes", c.notes);
  return y.str();
}

std::string points_csv(const Calibration& c) {
  std::ostringstream out;
  out << "file,kind,label,x,measured,predicted,unit,rel_error,held_out\n";
  for (const auto& p : c.points) {
    out << csv_field(p.file) << "," << p.kind << "," << csv_field(p.label) << "," << num(p.x) << "," << num(p.measured)
        << "," << num(p.predicted) << "," << p.unit << "," << num(p.relative_error()) << "," << (p.held_out ? 1 : 0)
        << "\n";
  }
  return out.str();
}

}  // namespace fathom::calib
