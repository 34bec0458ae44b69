#include "calibrate/profile/calibration.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "models/collectives/collective_timer.hpp"
#include "models/collectives/nccl_tests.hpp"

namespace fathom::calib {

namespace {

// The catalog precision whose peak a GEMM data type runs at; nullopt for one fathom has no peak
// for (fp4, fp6, integers, fp64).
std::optional<hw::Precision> precision_of(const std::string& dtype) {
  if (dtype == "fp16" || dtype == "bf16") return hw::Precision::kBf16;
  if (dtype.rfind("fp8", 0) == 0) return hw::Precision::kFp8;
  if (dtype == "tf32") return hw::Precision::kTf32;
  if (dtype == "fp32") return hw::Precision::kFp32;
  return std::nullopt;
}

// What a measurement measures: two files with the same key measure the same thing.
std::string subject(const Measurement& m, const SeriesOptions& options) {
  if (const auto* log = std::get_if<NcclTestsLog>(&m)) {
    const BusbwSeries s = busbw_series(*log, options);
    return "nccl-tests " + s.op_name + " on " + std::to_string(s.nodes) + " x " + std::to_string(s.gpus_per_node) +
           " GPUs, algo " + (s.algo_name.empty() ? "auto" : s.algo_name);
  }
  if (const auto* stream = std::get_if<StreamBandwidth>(&m)) return "memory bandwidth (" + stream->memory + ")";
  if (std::holds_alternative<FioRuns>(m)) return "storage (fio)";
  if (std::holds_alternative<TransferBandwidth>(m)) return "host-device copies";
  if (std::holds_alternative<AttentionResult>(m)) return "attention kernels";
  if (std::holds_alternative<OperatorProfile>(m)) return "operator profile " + file_of(m);
  if (std::holds_alternative<CollectiveProfile>(m)) return "NCCL profile " + file_of(m);
  return {};  // GEMM sweeps: per data type, below
}

void check_distinct(const std::vector<Measurement>& all, const SeriesOptions& options) {
  std::map<std::string, std::string> seen;
  const auto claim = [&](const std::string& key, const std::string& file) {
    auto [it, fresh] = seen.emplace(key, file);
    if (!fresh && it->second != file) {
      throw std::invalid_argument(file + " and " + it->second + " both measure " + key +
                                  ": one profile is one system under one software version. Calibrate each set on "
                                  "its own (list its files, or leave the others out with --exclude)");
    }
  };
  for (const Measurement& m : all) {
    if (const auto* sweep = std::get_if<GemmSweep>(&m)) {
      for (const GemmPoint& p : sweep->points) claim("GEMMs in " + p.dtype, sweep->file);
    } else {
      claim(subject(m, options), file_of(m));
    }
  }
}

std::string shape_label(const GemmPoint& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " " + p.dtype;
}

void add_nccl(Calibration& c, const std::vector<const NcclTestsLog*>& fitted,
              const std::vector<const NcclTestsLog*>& held, const SystemFacts& system,
              const CalibrationOptions& options) {
  if (fitted.empty() && held.empty()) return;
  const auto series_of = [&](const NcclTestsLog& log) {
    BusbwSeries s = busbw_series(log, options.series);
    apply_stated_algorithm(s, system.cluster_for(s.nodes).node.nvls);
    return s;
  };
  std::vector<BusbwSeries> fit_series;  // the points the fit sees
  std::vector<std::vector<bool>> held_point;
  for (const auto* log : fitted) {
    BusbwSeries s = series_of(*log);
    BusbwSeries kept = s;
    kept.points.clear();
    std::vector<bool> held_here;
    std::size_t eligible = 0;
    for (const auto& p : s.points) eligible += p.bytes >= options.collective.min_bytes;
    std::size_t index = 0;
    for (const auto& p : s.points) {
      bool out = false;
      if (p.bytes >= options.collective.min_bytes) out = held_out_point(index++, eligible, options.holdout_fraction);
      held_here.push_back(out);
      if (!out) kept.points.push_back(p);
    }
    c.series.push_back(std::move(s));
    held_point.push_back(std::move(held_here));
    fit_series.push_back(std::move(kept));
  }
  for (const auto* log : held) {
    c.series.push_back(series_of(*log));
    held_point.emplace_back(c.series.back().points.size(), true);
  }
  for (const auto& s : c.series) {
    for (const auto& a : s.assumed) c.notes.push_back(s.file + ": assumed " + a);
  }
  coll::CollectiveParams params = system.collectives;
  if (!fit_series.empty()) {
    c.collectives = fit_collectives(system.cluster_for, fit_series, system.collectives, options.collective);
    params = c.collectives->params;
  }
  // Every point of every series, predicted by the fitted model's simulation.
  CollectiveFitOptions all = options.collective;
  all.min_bytes = 0;
  const std::vector<double> predicted = predict_busbw(system.cluster_for, c.series, params, all, true);
  std::size_t k = 0;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const BusbwSeries& s = c.series[i];
    for (std::size_t j = 0; j < s.points.size(); ++j, ++k) {
      const BusbwPoint& p = s.points[j];
      c.points.push_back({s.file, "nccl-tests", std::to_string(p.bytes), static_cast<double>(p.bytes), p.busbw_gbps,
                          predicted[k], "GB/s", held_point[i][j]});
    }
  }
}

void add_gemm(Calibration& c, const GemmSweep& sweep, bool whole_file_held, const SystemFacts& system,
              const CalibrationOptions& options) {
  std::map<std::string, std::vector<GemmPoint>> by_dtype;
  for (const GemmPoint& p : sweep.points) by_dtype[p.dtype].push_back(p);
  AcceleratorFacts facts;
  facts.sms = system.accelerator.compute_units;
  facts.hbm_bytes_per_s = system.accelerator.hbm_bytes_per_s;
  for (auto& [dtype, points] : by_dtype) {
    const auto precision = precision_of(dtype);
    if (!precision || !(system.accelerator.peak(*precision) > 0)) {
      c.notes.push_back(sweep.file + ": " + dtype + " GEMMs not fitted: " + system.accelerator.name +
                        " has no catalog peak for " + dtype);
      continue;
    }
    facts.peak_by_dtype[dtype] = system.accelerator.peak(*precision);
    std::vector<GemmPoint> fit_points;
    std::vector<bool> held;
    for (std::size_t i = 0; i < points.size(); ++i) {
      held.push_back(whole_file_held || held_out_point(i, points.size(), options.holdout_fraction));
      if (!held.back()) fit_points.push_back(points[i]);
    }
    if (fit_points.empty()) continue;
    GemmFit fit = fit_gemm_dtype(fit_points, dtype, facts, {}, sweep.file);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const GemmPoint& p = points[i];
      c.points.push_back({sweep.file, "gemm", shape_label(p), 2.0 * p.m * p.n * p.k, p.tflops,
                          fit.predict_tflops(p.m, p.n, p.k, std::max<std::int64_t>(p.batch, 1)), "TFLOP/s", held[i]});
    }
    c.gemm.push_back(std::move(fit));
  }
}

}  // namespace

bool held_out_point(std::size_t i, std::size_t n, double fraction) {
  if (!(fraction > 0) || n == 0) return false;
  // Point i is held out when the running count floor((i + 1/2) f) steps up at it.
  const auto before = std::floor((static_cast<double>(i) + 0.5) * fraction);
  const auto after = std::floor((static_cast<double>(i) + 1.5) * fraction);
  return after > before;
}

namespace {

// Fits the first profile not held out; predicts every held-out one with that fit (or, with none,
// with the system's catalog accelerator). Every operator becomes a point (microseconds).
void add_operator_profile(Calibration& c, const OperatorProfile& profile, bool held, const SystemFacts& system) {
  if (!held && c.kernels) {
    throw std::invalid_argument(profile.file + " and " + c.kernels->file +
                                ": both are operator profiles to fit; fit one and hold the others out "
                                "(--holdout-files) to see how the fit predicts them");
  }
  hw::AcceleratorSpec accelerator = system.accelerator;
  if (!held) {
    AcceleratorFacts facts;
    facts.sms = accelerator.compute_units;
    facts.hbm_bytes_per_s = accelerator.hbm_bytes_per_s;
    facts.peak_by_dtype["bf16"] = accelerator.peak(hw::Precision::kBf16);
    c.kernels = fit_kernels(profile, facts);
  }
  if (c.kernels) accelerator = with_kernel_fit(accelerator, *c.kernels);
  const std::vector<OperatorPrediction> predictions = predict_profile(profile, accelerator);
  for (const OperatorPrediction& p : predictions) {
    c.points.push_back(
        {profile.file, "kernel",
         std::string(profile_column(p.op)) + " " + std::to_string(p.tokens) + " tokens tp" + std::to_string(p.tp),
         static_cast<double>(p.tokens), p.measured_s * 1e6, p.predicted_s * 1e6, "us", held});
  }
  if (held) c.kernel_predictions.push_back({profile.file, profile_errors(predictions, kKernelMinTokens)});
}

}  // namespace

Calibration calibrate(const std::vector<Measurement>& fit_files, const std::vector<Measurement>& held_out_files,
                      const SystemFacts& system, const CalibrationOptions& options) {
  if (options.holdout_fraction < 0 || options.holdout_fraction >= 1) {
    throw std::invalid_argument("--holdout: expected a fraction in [0, 1), found " +
                                std::to_string(options.holdout_fraction));
  }
  std::vector<Measurement> all = fit_files;
  all.insert(all.end(), held_out_files.begin(), held_out_files.end());
  check_distinct(all, options.series);

  Calibration c;
  std::vector<const NcclTestsLog*> nccl_fit, nccl_held;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Measurement& m = all[i];
    const bool held = i >= fit_files.size();
    (held ? c.files_held_out : c.files_used).push_back(file_of(m));
    if (const auto* log = std::get_if<NcclTestsLog>(&m)) {
      (held ? nccl_held : nccl_fit).push_back(log);
    } else if (const auto* profile = std::get_if<CollectiveProfile>(&m)) {
      // Each group shape of the profile is a sweep of its own.
      for (const NcclTestsLog& log : profile->logs) (held ? nccl_held : nccl_fit).push_back(&log);
    } else if (const auto* sweep = std::get_if<GemmSweep>(&m)) {
      add_gemm(c, *sweep, held, system, options);
    } else if (const auto* stream = std::get_if<StreamBandwidth>(&m)) {
      if (stream->memory == "cpu") {
        c.notes.push_back(stream->file + ": host memory bandwidth is reported, not fitted (fathom models HBM only)");
        continue;
      }
      MemoryFit fit = fit_memory(*stream, system.accelerator.hbm_bytes_per_s);
      for (const auto& k : fit.kernels) {
        c.points.push_back({stream->file, "hbm", k.kernel, 0, k.bytes_per_s / 1e12, fit.achievable_bytes_per_s() / 1e12,
                            "TB/s", held});
      }
      if (!held) c.hbm = std::move(fit);
    } else if (const auto* runs = std::get_if<FioRuns>(&m)) {
      for (StorageFit& fit : fit_storage(*runs)) {
        for (const auto& row : fit.rows) {
          c.points.push_back({runs->file, "storage", row.rw + " " + std::to_string(row.block_size_bytes) + "B",
                              static_cast<double>(row.block_size_bytes), row.bandwidth_bytes_per_s / 1e9,
                              fit.bandwidth(static_cast<double>(row.block_size_bytes)) / 1e9, "GB/s", held});
        }
        if (!held) c.storage.push_back(std::move(fit));
      }
    } else if (const auto* transfer = std::get_if<TransferBandwidth>(&m)) {
      // Per-direction fractions of the node's PCIe rate.
      if (!held) c.transfer = fit_transfer(*transfer, system.cluster_for(1).node.pcie_bytes_per_s);
    } else if (const auto* profile = std::get_if<OperatorProfile>(&m)) {
      add_operator_profile(c, *profile, held, system);
    } else if (const auto* attention = std::get_if<AttentionResult>(&m)) {
      for (const auto& p : attention->points) {
        const bool flash = p.implementation.find("Flash") != std::string::npos;
        if (flash && !held && system.accelerator.peak(hw::Precision::kBf16) > 0) {
          c.attention_fraction = p.tflops * 1e12 / system.accelerator.peak(hw::Precision::kBf16);
          c.attention_file = attention->file;
        }
      }
    }
  }
  add_nccl(c, nccl_fit, nccl_held, system, options);
  // Training runs BF16 and FP8 GEMMs: a precision the accelerator has but no sweep measured
  // keeps the catalog's efficiency, and the profile says so.
  if (!c.gemm.empty()) {
    for (const hw::Precision p : {hw::Precision::kBf16, hw::Precision::kFp8}) {
      if (!(system.accelerator.peak(p) > 0)) continue;
      bool measured_here = false;
      for (const auto& g : c.gemm) measured_here |= precision_of(g.dtype) == p;
      if (!measured_here) {
        std::ostringstream what;
        what << hw::to_string(p) << " GEMMs: no measurement; the catalog's " << system.accelerator.name;
        if (p == hw::Precision::kBf16) {
          what << " gemm_max (" << system.accelerator.efficiency.gemm_max
               << ") stays, the profile's curve scaled to it";
        } else {
          what << " efficiency stays for them";
        }
        c.notes.push_back(what.str());
      }
    }
  }

  std::vector<double> predicted, measured;
  for (const auto& p : c.points) {
    if (p.held_out && p.measured > 0 && p.kind != "kernel" &&
        (p.kind != "nccl-tests" || p.x >= options.collective.min_bytes)) {
      predicted.push_back(p.predicted);
      measured.push_back(p.measured);
    }
  }
  if (!measured.empty()) c.held_out = evaluate(predicted, measured);
  if (!c.collectives && c.gemm.empty() && !c.hbm && c.storage.empty() && !c.transfer && !c.attention_fraction &&
      !c.kernels) {
    throw std::invalid_argument(
        "nothing to fit: no nccl-tests, GEMM, memory, storage, transfer or operator-profile measurement");
  }
  return c;
}

std::vector<std::vector<double>> predict_scaling(const ClusterForNodes& cluster_for,
                                                 const coll::CollectiveParams& params, const BusbwSeries& pattern,
                                                 const std::vector<int>& nodes,
                                                 const std::vector<std::int64_t>& sizes) {
  std::vector<std::vector<double>> out;
  for (int n : nodes) {
    coll::CollectiveTimer timer(cluster_for(n), params, 1);
    const auto ranks = coll::nccl_group_ranks(timer.topology(), n, pattern.gpus_per_node);
    std::vector<double> row;
    for (std::int64_t size : sizes) {
      row.push_back(coll::closed_form_nccl_size(timer, pattern.op, ranks, size, pattern.algorithm).busbw_gbps);
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace fathom::calib
