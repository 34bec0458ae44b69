#include "calibrate/fit/kernel_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace fathom::calib {

namespace {

constexpr double kAct = 2;  // bytes per BF16 element

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

compute::Kernel gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  compute::Kernel g;
  g.name = "gemm";
  g.kind = compute::KernelKind::kGemm;
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  g.flops = 2 * md * nd * kd;
  g.bytes = kAct * (md * kd + kd * nd + md * nd);
  g.shape = {m, n, k, 1};
  return g;
}

compute::Kernel streaming(hw::MemoryKernel kind, double bytes) {
  compute::Kernel k;
  k.name = hw::to_string(kind);
  k.kind = compute::KernelKind::kMemory;
  k.bytes = bytes;
  k.memory_kernel = kind;
  return k;
}

// launch_s, bytes_per_s, min_s of one class from its (bytes, seconds) points.
FitResult fit_memory_kernel(const std::vector<double>& bytes, const std::vector<double>& seconds,
                            const FitOptions& options) {
  const double shortest = *std::min_element(seconds.begin(), seconds.end());
  std::vector<FitParameter> parameters = {
      {"launch_s", 1e-6, 0, 1e-3, false, "s", 0},
      {"bytes_per_s", 2e12, 1e10, 1e15, false, "B/s", 0},
      {"min_s", shortest, 0, 1e-3, false, "s", 0},
  };
  const FitModel model = [&](const std::vector<double>& p) {
    const hw::MemoryKernelCost cost{p[0], p[1], p[2]};
    std::vector<double> out;
    out.reserve(bytes.size());
    for (double b : bytes) out.push_back(cost.seconds(b));
    return out;
  };
  return fit_least_squares(model, seconds, parameters, options);
}

}  // namespace

std::optional<hw::MemoryKernel> memory_kernel_of(ProfiledOp op) {
  switch (op) {
    case ProfiledOp::kInputNorm:
    case ProfiledOp::kPostNorm:
      return hw::MemoryKernel::kNorm;
    case ProfiledOp::kRotary:
      return hw::MemoryKernel::kRotary;
    case ProfiledOp::kActivation:
      return hw::MemoryKernel::kActivation;
    case ProfiledOp::kResidual:
      return hw::MemoryKernel::kResidual;
    case ProfiledOp::kQkv:
    case ProfiledOp::kAttentionOut:
    case ProfiledOp::kMlpUp:
    case ProfiledOp::kMlpDown:
      break;
  }
  return std::nullopt;
}

std::array<compute::Kernel, kProfiledOps> profiled_kernels(const ProfiledModel& m, std::int64_t tokens, int tp) {
  const std::int64_t head_dim = m.hidden / m.heads;
  const std::int64_t q = m.hidden / tp;
  const std::int64_t kv = std::max<std::int64_t>(m.kv_heads / tp, 1) * head_dim;
  const std::int64_t f = m.ffn_hidden / tp;
  const double t = static_cast<double>(tokens), h = static_cast<double>(m.hidden);
  std::array<compute::Kernel, kProfiledOps> k{};
  const auto at = [&](ProfiledOp op) -> compute::Kernel& { return k[static_cast<std::size_t>(op)]; };
  at(ProfiledOp::kQkv) = gemm(tokens, q + 2 * kv, m.hidden);
  at(ProfiledOp::kAttentionOut) = gemm(tokens, m.hidden, q);
  at(ProfiledOp::kMlpUp) = gemm(tokens, (m.gated ? 2 : 1) * f, m.hidden);
  at(ProfiledOp::kMlpDown) = gemm(tokens, m.hidden, f);
  const compute::Kernel norm = streaming(hw::MemoryKernel::kNorm, 2 * kAct * t * h);
  at(ProfiledOp::kInputNorm) = norm;
  at(ProfiledOp::kPostNorm) = norm;
  at(ProfiledOp::kRotary) = streaming(hw::MemoryKernel::kRotary, 2 * kAct * t * static_cast<double>(q + kv));
  at(ProfiledOp::kActivation) =
      streaming(hw::MemoryKernel::kActivation, (m.gated ? 3 : 2) * kAct * t * static_cast<double>(f));
  at(ProfiledOp::kResidual) = streaming(hw::MemoryKernel::kResidual, 3 * kAct * t * h);
  return k;
}

KernelFit fit_kernels(const OperatorProfile& profile, const AcceleratorFacts& facts, const FitOptions& options) {
  KernelFit out;
  out.file = profile.file;
  std::vector<GemmPoint> gemms;
  std::array<std::vector<double>, hw::kMemoryKernels> bytes, seconds;
  for (const ProfileRow& row : profile.rows) {
    const auto kernels = profiled_kernels(profile.model, row.tokens, row.tp);
    for (std::size_t i = 0; i < kProfiledOps; ++i) {
      const compute::Kernel& k = kernels[i];
      const double measured = row.median_s[i];
      if (k.kind == compute::KernelKind::kGemm) {
        GemmPoint p;
        p.m = k.shape.m;
        p.n = k.shape.n;
        p.k = k.shape.k;
        p.dtype = "bf16";
        p.tflops = k.flops / measured / 1e12;
        p.line = row.line;
        gemms.push_back(p);
      } else {
        const auto c = static_cast<std::size_t>(*k.memory_kernel);
        bytes[c].push_back(k.bytes);
        seconds[c].push_back(measured);
      }
    }
  }
  out.gemm = fit_gemm_dtype(gemms, "bf16", facts, options, profile.file);
  for (std::size_t c = 0; c < hw::kMemoryKernels; ++c) {
    if (bytes[c].size() < 3) {
      throw std::invalid_argument(profile.file + ": " + std::to_string(bytes[c].size()) + " " +
                                  std::string(hw::to_string(static_cast<hw::MemoryKernel>(c))) +
                                  " kernels cannot determine its three parameters (launch, rate, minimum)");
    }
    out.memory_fit[c] = fit_memory_kernel(bytes[c], seconds[c], options);
    const FitResult& f = out.memory_fit[c];
    out.memory[c] = {f.value("launch_s"), f.value("bytes_per_s"), f.value("min_s")};
  }
  return out;
}

hw::AcceleratorSpec with_kernel_fit(hw::AcceleratorSpec a, const KernelFit& fit) {
  hw::GemmTiles& t = a.efficiency.gemm_tiles_bf16;
  static_cast<hw::GemmTileCosts&>(t) = fit.gemm.model;
  t.present = true;
  t.precision = hw::Precision::kBf16;
  a.efficiency.memory_kernels = fit.memory;
  return a;
}

std::vector<OperatorPrediction> predict_profile(const OperatorProfile& profile, const hw::AcceleratorSpec& a) {
  std::vector<OperatorPrediction> out;
  out.reserve(profile.rows.size() * kProfiledOps);
  for (const ProfileRow& row : profile.rows) {
    const auto kernels = profiled_kernels(profile.model, row.tokens, row.tp);
    for (std::size_t i = 0; i < kProfiledOps; ++i) {
      out.push_back({row.tokens, row.tp, static_cast<ProfiledOp>(i), row.median_s[i],
                     compute::kernel_seconds(a, hw::Precision::kBf16, kernels[i])});
    }
  }
  return out;
}

ProfileErrors profile_errors(const std::vector<OperatorPrediction>& predictions, std::int64_t min_tokens) {
  ProfileErrors e;
  std::vector<double> gemm, memory, layer;
  std::map<std::pair<std::int64_t, int>, std::pair<double, double>> rows;  // measured, predicted sums
  std::vector<std::pair<std::int64_t, int>> order;
  for (const OperatorPrediction& p : predictions) {
    if (p.tokens < min_tokens) continue;
    (is_gemm(p.op) ? gemm : memory).push_back(p.relative_error());
    auto [it, fresh] = rows.try_emplace({p.tokens, p.tp}, 0.0, 0.0);
    if (fresh) order.push_back(it->first);
    it->second.first += p.measured_s;
    it->second.second += p.predicted_s;
  }
  for (const auto& key : order) {
    const auto& [measured, predicted] = rows.at(key);
    const double error = predicted / measured - 1;
    layer.push_back(error);
    if (std::abs(error) > std::abs(e.layer_worst)) {
      e.layer_worst = error;
      e.worst_tokens = key.first;
      e.worst_tp = key.second;
    }
  }
  e.gemm_median = median_of(gemm);
  e.memory_median = median_of(memory);
  e.layer_median = median_of(layer);
  e.rows = order.size();
  return e;
}

}  // namespace fathom::calib
