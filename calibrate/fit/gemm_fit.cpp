#include "calibrate/fit/gemm_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "models/hardware/accelerator_parameters.hpp"

namespace fathom::calib {

namespace {

// The bounds of the fitted parameters and the multi-start grid of their start values. The grid
// spans the plausible range of each: a small, fixed grid keeps the fit deterministic and fast
// (a 9-point sweep fits 72 times in milliseconds).
struct ParameterSpec {
  const char* key;  // the declared key in a profile's gemm_tiles (hw::gemm_tiles_parameters())
  double lower, upper;
  const char* unit;
  std::vector<double> starts;
};
const std::array<ParameterSpec, 6>& specs() {
  static const std::array<ParameterSpec, 6> s = {
      ParameterSpec{"gemm_max", 0.05, 1.0, "", {0.5, 0.7, 0.9}},
      ParameterSpec{"launch", 0.0, 100e-6, "s", {1e-6, 5e-6, 20e-6}},
      ParameterSpec{"wave_overhead", 0.0, 100e-6, "s", {0.2e-6, 2e-6}},
      ParameterSpec{"hbm_fraction", 0.1, 1.0, "", {0.9, 0.6}},
      ParameterSpec{"stream_k_efficiency", 0.3, 1.0, "", {0.9, 0.6}},
      // One start: it scales only the unaligned shapes' compute, so it does not make the
      // objective multi-modal the way the kernel choice does.
      ParameterSpec{"unaligned_efficiency", 0.2, 1.0, "", {0.9}},
  };
  return s;
}

GemmModel with_parameters(GemmModel m, const std::vector<double>& p) {
  m.gemm_max = p[0];
  m.launch_s = p[1];
  m.wave_overhead_s = p[2];
  m.hbm_fraction = p[3];
  m.stream_k_efficiency = p[4];
  m.unaligned_efficiency = p[5];
  return m;
}

std::string where(const std::string& file, const std::string& dtype) {
  return "GEMM fit" + (file.empty() ? std::string() : " of " + file) + ", dtype " + dtype;
}

}  // namespace

GemmElementBytes gemm_element_bytes(std::string_view dtype) {
  if (dtype.rfind("fp8", 0) == 0) return {1, 2};
  if (dtype.rfind("fp6", 0) == 0) return {0.75, 2};
  if (dtype.rfind("fp4", 0) == 0) return {0.5, 2};
  if (dtype == "fp16" || dtype == "bf16") return {2, 2};
  if (dtype == "fp32" || dtype == "tf32") return {4, 4};
  if (dtype == "fp64") return {8, 8};
  if (dtype == "int8") return {1, 4};
  if (dtype == "int4") return {0.5, 4};
  throw std::invalid_argument("GEMM model: unknown data type \"" + std::string(dtype) + "\"");
}

GemmFit fit_gemm_dtype(const std::vector<GemmPoint>& points, const std::string& dtype, const AcceleratorFacts& facts,
                       const FitOptions& options, const std::string& file) {
  if (facts.sms <= 0) throw std::invalid_argument(where(file, dtype) + ": the SM count must be positive");
  if (!(facts.hbm_bytes_per_s > 0) || !std::isfinite(facts.hbm_bytes_per_s)) {
    throw std::invalid_argument(where(file, dtype) + ": the HBM bandwidth must be positive");
  }
  const auto peak = facts.peak_by_dtype.find(dtype);
  if (peak == facts.peak_by_dtype.end() || !(peak->second > 0) || !std::isfinite(peak->second)) {
    throw std::invalid_argument(where(file, dtype) + ": the dense peak FLOP/s of " + dtype +
                                " is unknown (AcceleratorFacts::peak_by_dtype has no positive entry for it)");
  }
  GemmModel base;
  base.sms = facts.sms;
  base.peak_flops = peak->second;
  base.hbm_bytes_per_s = facts.hbm_bytes_per_s;
  const GemmElementBytes eb = gemm_element_bytes(dtype);
  base.input_bytes = eb.input;
  base.output_bytes = eb.output;

  GemmFit out;
  out.dtype = dtype;
  std::vector<double> measured;
  for (const GemmPoint& p : points) {
    if (p.dtype != dtype) continue;
    out.points.push_back(p);
    measured.push_back(p.tflops);
    if (!gemm_aligned(p.m, p.n, p.k, eb.input)) ++out.unaligned_points;
  }
  // unaligned_efficiency is free only when some shape depends on it.
  const bool fit_unaligned = out.unaligned_points > 0;
  const std::size_t free_parameters = specs().size() - (fit_unaligned ? 0 : 1);
  if (out.points.size() < free_parameters) {
    throw std::invalid_argument(where(file, dtype) + ": " + std::to_string(out.points.size()) +
                                " points cannot determine the model's " + std::to_string(free_parameters) +
                                " parameters (gemm_max, launch_s, wave_overhead_s, hbm_fraction, "
                                "stream_k_efficiency" +
                                (fit_unaligned ? ", unaligned_efficiency" : "") + "); measure at least " +
                                std::to_string(free_parameters) + " shapes");
  }

  const FitModel model = [&](const std::vector<double>& p) {
    const GemmModel g = with_parameters(base, p);
    std::vector<double> y;
    y.reserve(out.points.size());
    for (const GemmPoint& pt : out.points) y.push_back(g.tflops(pt.m, pt.n, pt.k, pt.batch));
    return y;
  };

  // The multi-start grid, in a fixed order (the first parameter varies slowest).
  const auto& s = specs();
  std::vector<std::vector<double>> starts = {{}};
  for (const ParameterSpec& spec : s) {
    std::vector<std::vector<double>> next;
    for (const auto& prefix : starts) {
      for (double v : spec.starts) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    starts = std::move(next);
  }
  out.starts = static_cast<int>(starts.size());

  bool have = false;
  double best_ssr = 0;
  for (const auto& start : starts) {
    std::vector<FitParameter> params;
    for (std::size_t i = 0; i < s.size(); ++i) {
      FitParameter fp;
      fp.name = std::string(params::find(hw::gemm_tiles_parameters(), s[i].key)->fit_name);
      fp.value = start[i];
      fp.lower = s[i].lower;
      fp.upper = s[i].upper;
      fp.unit = s[i].unit;
      if (fp.name == "unaligned_efficiency" && !fit_unaligned) {
        fp.value = 1;
        fp.fixed = true;
      }
      params.push_back(std::move(fp));
    }
    FitResult r = fit_least_squares(model, measured, std::move(params), options);
    const double ssr = sum_squared_relative(r);
    // Strictly lower: on a tie the earlier start wins, whatever the platform's rounding.
    if (!have || ssr < best_ssr * (1 - 1e-9)) {
      have = true;
      best_ssr = ssr;
      out.fit = std::move(r);
    }
  }

  std::vector<double> values;
  for (const FitParameter& p : out.fit.parameters) values.push_back(p.value);
  out.model = with_parameters(base, values);
  for (std::size_t i = 0; i < out.fit.parameters.size(); ++i) {
    if (std::isnan(out.fit.uncertainty[i])) out.not_identified.push_back(out.fit.parameters[i].name);
  }
  out.fit.message += "; best of " + std::to_string(out.starts) + " starts";
  if (!out.not_identified.empty()) {
    std::string names;
    for (const std::string& n : out.not_identified) names += (names.empty() ? "" : ", ") + n;
    out.fit.message += "; not identified by these shapes (NaN uncertainty, value is a start value): " + names;
  }
  if (fit_unaligned) {
    out.fit.message += "; unaligned_efficiency from " + std::to_string(out.unaligned_points) + " shape" +
                       (out.unaligned_points == 1 ? "" : "s") + " off the 16-byte vector";
  } else {
    out.not_identified.push_back("unaligned_efficiency");
    out.fit.message += "; every shape is aligned to the 16-byte vector: unaligned_efficiency kept at 1";
  }
  return out;
}

bool tile_model_usable(const GemmFit& fit) {
  for (const std::string& name : fit.not_identified) {
    if (name == "gemm_max") return false;
  }
  return fit.fit.max_abs_rel_error <= kTileModelMaxError;
}

std::vector<GemmFit> fit_gemm(const GemmSweep& sweep, const AcceleratorFacts& facts, const FitOptions& options) {
  std::vector<std::string> dtypes;
  for (const GemmPoint& p : sweep.points) {
    if (std::find(dtypes.begin(), dtypes.end(), p.dtype) == dtypes.end()) dtypes.push_back(p.dtype);
  }
  if (dtypes.empty()) throw std::invalid_argument("GEMM fit of " + sweep.file + ": no points");
  // Every data type's peak is checked before any fit, so a missing one is reported at once.
  for (const std::string& d : dtypes) {
    const auto peak = facts.peak_by_dtype.find(d);
    if (peak == facts.peak_by_dtype.end() || !(peak->second > 0)) {
      throw std::invalid_argument(where(sweep.file, d) + ": the dense peak FLOP/s of " + d +
                                  " is unknown (AcceleratorFacts::peak_by_dtype has no positive entry for it)");
    }
  }
  std::vector<GemmFit> fits;
  for (const std::string& d : dtypes) fits.push_back(fit_gemm_dtype(sweep.points, d, facts, options, sweep.file));
  return fits;
}

}  // namespace fathom::calib
