// `fathom calibrate`: the run (report/calibration/calibration_run.hpp) and its report.
#include "report/calibration/calibration_run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "calibrate/measurement.hpp"
#include "calibrate/profile/sha256.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {

namespace {

namespace fs = std::filesystem;

bool matches(const std::vector<std::string>& globs, const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  for (const auto& g : globs) {
    if (fnmatch(g.c_str(), file.c_str(), 0) == 0 || fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

// The measurement files of the inputs: a folder's files (as load_folder reads them) or a file.
std::vector<fs::path> input_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const auto& in : inputs) {
    if (!fs::is_directory(in)) {
      files.emplace_back(in);
      continue;
    }
    std::vector<fs::path> here;
    for (const auto& e : fs::directory_iterator(in)) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name.empty() || name[0] == '.' || name == "README.md" || name == "SOURCES.md") {
        continue;
      }
      here.push_back(e.path());
    }
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

std::size_t rows_of(const calib::Measurement& m) {
  return std::visit(
      [](const auto& x) -> std::size_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, calib::NcclTestsLog>) return x.rows.size();
        if constexpr (std::is_same_v<T, calib::GemmSweep>) return x.points.size();
        if constexpr (std::is_same_v<T, calib::StreamBandwidth>) return x.kernels.size();
        if constexpr (std::is_same_v<T, calib::FioRuns>) return x.results.size();
        if constexpr (std::is_same_v<T, calib::TransferBandwidth>) return x.tests.size();
        if constexpr (std::is_same_v<T, calib::AttentionResult>) return x.points.size();
        if constexpr (std::is_same_v<T, calib::OperatorProfile>) return x.rows.size();
        if constexpr (std::is_same_v<T, calib::CollectiveProfile>) {
          std::size_t rows = 0;
          for (const auto& log : x.logs) rows += log.rows.size();
          return rows;
        }
        return 0;
      },
      m);
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void print_fit(std::FILE* out, const char* what, const calib::FitResult& r) {
  std::fprintf(out, "%s: points=%zu r2=%.4f median_rel_error=%.4f max_rel_error=%.4f\n", what, r.predicted.size(),
               r.r_squared, r.median_abs_rel_error, r.max_abs_rel_error);
}

void print_parameters(std::FILE* out, const calib::FitResult& r) {
  for (std::size_t i = 0; i < r.parameters.size(); ++i) {
    const auto& p = r.parameters[i];
    if (p.fixed) continue;
    std::fprintf(out, "#   %-20s %14.6g +- %-12.3g %s\n", p.name.c_str(), p.value, r.uncertainty[i], p.unit.c_str());
  }
}

void print_points(std::FILE* out, const calib::Calibration& c, const std::string& kind, std::int64_t min_bytes) {
  std::string file;
  for (const auto& p : c.points) {
    if (p.kind != kind) continue;
    if (p.file != file) {
      file = p.file;
      std::fprintf(out, "# %s\n#%27s %12s %12s %9s\n", file.c_str(), "point", ("measured " + p.unit).c_str(), "fitted",
                   "error");
    }
    const bool summarised = kind != "nccl-tests" || p.x >= static_cast<double>(min_bytes);
    std::fprintf(out, "%28s %12.4g %12.4g %+8.1f%%%s%s\n", p.label.c_str(), p.measured, p.predicted,
                 100 * p.relative_error(), p.held_out ? "  held out" : "", summarised ? "" : "  (below 1 MiB)");
  }
}

// The pattern: the measured series on the most nodes (the multi-node one, if any), predicted
// on every node count of the request.
std::optional<ScalingTable> predicted_scaling(const calib::Calibration& c, const MeasuredSystem& system,
                                              const std::vector<int>& nodes) {
  if (c.series.empty() || nodes.empty() || !c.collectives) return std::nullopt;
  const calib::BusbwSeries* most = &c.series.front();
  for (const auto& s : c.series) {
    if (s.nodes > most->nodes) most = &s;
  }
  ScalingTable t;
  t.pattern = *most;
  // NVLS reduces inside one NVLink domain only: a single-node NVLS series scales with NCCL's
  // choice across nodes (the tree, then NVLS-tree).
  if (t.pattern.algorithm == coll::Algorithm::kNvls) {
    t.pattern.algorithm.reset();
    t.pattern.algo_name = "auto (the measured " + most->algo_name + " spans one node only)";
  }
  for (const auto& p : t.pattern.points) {
    if (p.bytes >= (std::int64_t{1} << 20)) t.sizes.push_back(p.bytes);
  }
  if (t.sizes.empty()) return std::nullopt;
  t.nodes = nodes;
  t.busbw_gbps = calib::predict_scaling(cluster_for(system), c.collectives->params, t.pattern, nodes, t.sizes);
  return t;
}

void print_scaling(std::FILE* out, const ScalingTable& t, const MeasuredSystem& system) {
  const calib::BusbwSeries& pattern = t.pattern;
  std::fprintf(out, "## predicted %s busbw (GB/s), %d GPU(s) per node, algo %s, on %s\n", pattern.op_name.c_str(),
               pattern.gpus_per_node, pattern.algo_name.empty() ? "auto" : pattern.algo_name.c_str(),
               system.described.c_str());
  std::fprintf(out, "#%13s", "size(B)");
  for (int n : t.nodes) std::fprintf(out, " %9d", n);
  std::fprintf(out, "  nodes\n");
  for (std::size_t j = 0; j < t.sizes.size(); ++j) {
    std::fprintf(out, "%14lld", static_cast<long long>(t.sizes[j]));
    for (std::size_t i = 0; i < t.nodes.size(); ++i) std::fprintf(out, " %9.2f", t.busbw_gbps[i][j]);
    std::fprintf(out, "\n");
  }
}

}  // namespace

CalibrationRun run_calibration(const CalibrationRequest& o) {
  CalibrationRun run;
  // The system: a scenario, a catalog node, or a node named by the inputs' paths.
  MeasuredSystem& system = run.system;
  if (!o.scenario.empty()) {
    system = system_from_scenario(scenario::load_scenario(o.scenario));
    if (!o.node.empty()) system.node = o.node;
  } else {
    std::string node = o.node;
    if (node.empty()) node = guess_node(o.inputs);
    if (node.empty()) {
      throw std::invalid_argument(
          "the measured system is unknown: pass --node (a catalog node such as dgx-h100) or "
          "--scenario");
    }
    system = system_from_node(node);
  }
  system.max_memory_bytes = o.max_memory_bytes;
  // The node counts to predict, checked before the fit: each must lay out on the system's
  // fabric within the memory limit.
  for (int n : o.predict_nodes) {
    if (n < 1)
      throw std::invalid_argument("--predict-nodes: expected node counts of 1 or more, found " + std::to_string(n));
    try {
      cluster_for(system)(n);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--predict-nodes " + std::to_string(n) + ": " + e.what());
    }
  }
  if (system.accelerator.name.empty()) {
    throw std::invalid_argument("the system has no accelerator: use a scenario whose node names one");
  }

  calib::LoadOptions load;
  load.nccl.op = o.op;
  std::vector<calib::Measurement> given;
  std::vector<calib::SourceFile>& sources = run.meta.sources;
  for (const fs::path& file : input_files(o.inputs)) {
    calib::SourceFile src;
    src.file = file.string();
    src.sha256 = calib::sha256_file(file);
    if (matches(o.exclude, src.file)) continue;
    given.push_back(calib::load_measurement(file, load));
    src.kind = std::string(calib::kind_of(given.back()));
    src.rows = rows_of(given.back());
    sources.push_back(src);
  }
  const std::vector<calib::Measurement> kept = calib::drop_repeated(given);
  std::set<std::string> kept_files;
  for (const auto& m : kept) kept_files.insert(calib::file_of(m));
  std::vector<calib::Measurement> fit, held;
  for (const auto& m : kept) (matches(o.holdout_files, calib::file_of(m)) ? held : fit).push_back(m);
  for (auto& src : sources) {
    if (!kept_files.count(src.file)) {
      src.used = "repeat of another file's measurement (a .log and its .csv count once)";
    } else {
      src.used = matches(o.holdout_files, src.file) ? "held out" : "fit";
    }
  }
  if (kept.empty()) throw std::invalid_argument("no measurement files in the inputs");

  calib::SystemFacts& facts = run.facts;
  facts.node = system.node;
  facts.accelerator = system.accelerator;
  facts.collectives = system.collectives;
  facts.cluster_for = cluster_for(system);
  calib::CalibrationOptions options;
  options.holdout_fraction = o.holdout;
  options.series.op = o.op;
  options.series.algo = o.algo;
  options.series.nodes = o.nodes;
  options.series.gpus_per_node = o.gpus_per_node;
  options.series.default_nodes = 1;
  options.series.default_gpus_per_node = system.cluster.node.gpus;
  options.collective.seed = system.seed;
  if (o.tuner != "thresholds" && o.tuner != "nccl") {
    throw std::invalid_argument("--tuner: expected thresholds or nccl, found \"" + o.tuner + "\"");
  }
  options.collective.tuner = o.tuner == "nccl" ? coll::Tuner::kNccl : coll::Tuner::kThresholds;
  if (o.min_bytes) options.collective.min_bytes = *o.min_bytes;
  // Every nccl-tests file is simulated on the system at its node count: refused up front when
  // that would pass the memory limit.
  for (const auto& m : kept) {
    if (const auto* log = std::get_if<calib::NcclTestsLog>(&m)) {
      require_series_within_memory(system, calib::busbw_series(*log, options.series));
    }
    if (const auto* profile = std::get_if<calib::CollectiveProfile>(&m)) {
      for (const auto& log : profile->logs)
        require_series_within_memory(system, calib::busbw_series(log, options.series));
    }
  }
  run.calibration = calib::calibrate(fit, held, facts, options);
  run.min_bytes = options.collective.min_bytes;
  run.scaling = predicted_scaling(run.calibration, system, o.predict_nodes);

  // The system's name: --system, else the first input folder's name (a file's folder).
  fs::path first =
      fs::is_directory(o.inputs.front()) ? fs::path(o.inputs.front()) : fs::path(o.inputs.front()).parent_path();
  if (first.empty()) first = ".";  // a file in the working folder
  run.meta.system = !o.system.empty() ? o.system : fs::absolute(first).lexically_normal().filename().string();
  run.meta.created = utc_now();
  run.meta.tool = std::string("fathom calibrate (fathom ") + FATHOM_VERSION + ")";
  return run;
}

namespace {

// The operator profile's fit: the BF16 tile model, each memory-bound kernel's cost, and the
// held-out profiles' errors over their rows of kKernelMinTokens tokens or more.
void print_kernel_fit(std::FILE* out, const calib::Calibration& c) {
  const calib::KernelFit& k = *c.kernels;
  std::fprintf(out, "## kernels of %s: BF16 GEMMs by the tile model over %d compute units\n", k.file.c_str(),
               k.gemm.model.sms);
  print_parameters(out, k.gemm.fit);
  for (std::size_t i = 0; i < hw::kMemoryKernels; ++i) {
    const hw::MemoryKernelCost& m = k.memory[i];
    std::fprintf(out, "#   %-10s launch %.3g us, %.4g TB/s, at least %.3g us (median error %.1f%%)\n",
                 std::string(hw::to_string(static_cast<hw::MemoryKernel>(i))).c_str(), m.launch_s * 1e6,
                 m.bytes_per_s / 1e12, m.min_s * 1e6, 100 * k.memory_fit[i].median_abs_rel_error);
  }
  for (const auto& p : c.kernel_predictions) {
    std::fprintf(out,
                 "# held out %s (rows of >= %lld tokens): GEMM median %+.1f%%, memory-bound median %+.1f%%, "
                 "layer median %+.1f%%, worst layer %+.1f%% (%lld tokens, TP %d)\n",
                 p.file.c_str(), static_cast<long long>(calib::kKernelMinTokens), 100 * p.errors.gemm_median,
                 100 * p.errors.memory_median, 100 * p.errors.layer_median, 100 * p.errors.layer_worst,
                 static_cast<long long>(p.errors.worst_tokens), p.errors.worst_tp);
  }
}

}  // namespace

void write_calibration_report(std::FILE* out, const CalibrationRun& run) {
  const calib::Calibration& c = run.calibration;
  const MeasuredSystem& system = run.system;
  std::fprintf(out, "# fathom calibrate: %zu file(s) fitted, %zu held out; system: %s (%s)\n", c.files_used.size(),
               c.files_held_out.size(), system.described.c_str(), system.accelerator.name.c_str());
  for (const auto& note : c.notes) std::fprintf(out, "# note: %s\n", note.c_str());
  if (c.collectives) {
    std::fprintf(out,
                 "## collectives: fitted through fathom's collective model (closed forms); reported by simulation\n");
    print_parameters(out, c.collectives->result);
    for (const auto& name : c.collectives->not_identified) {
      std::fprintf(out, "#   %-20s not identified by these measurements: catalog value kept\n", name.c_str());
    }
    const coll::CollectiveParams& fitted = c.collectives->params;
    for (const auto& name : c.collectives->fitted) {
      if (name == "ll128_max_bytes") {
        std::fprintf(out, "#   protocols by size    LL below %.0f B, LL128 below %.0f B, Simple from there on\n",
                     fitted.ll_max_bytes, std::max(fitted.ll_max_bytes, fitted.ll128_max_bytes));
      }
      if (name == "tree_ll128_max_bytes") {
        std::fprintf(out, "#   tree protocols       LL below %.0f B, LL128 below %.0f B, Simple from there on\n",
                     fitted.tree_ll_max_bytes, std::max(fitted.tree_ll_max_bytes, fitted.tree_ll128_max_bytes));
      }
      if (name == "nvls_min_bytes") {
        std::fprintf(out, "#   nvls_min_bytes       %.0f B (one node: ring below, NVLS from there on)\n",
                     fitted.nvls_min_bytes);
      }
      if (name == "tree_max_bytes") {
        std::fprintf(out,
                     "#   tree_max_bytes       %.0f B (across nodes: tree below, NVLS-tree or ring from there on)\n",
                     fitted.tree_max_bytes);
      }
      if (name == "nvls_adaptive_chunk") {
        std::fprintf(out, "#   nvls_adaptive_chunk  %s\n", fitted.nvls_adaptive_chunk ? "true" : "false");
      }
    }
    print_points(out, c, "nccl-tests", run.min_bytes);
  }
  for (const auto& g : c.gemm) {
    std::fprintf(out, "## gemm %s: roofline with wave quantisation over %d compute units\n", g.dtype.c_str(),
                 g.model.sms);
    print_parameters(out, g.fit);
    for (const auto& name : g.not_identified) std::fprintf(out, "#   %-20s not identified\n", name.c_str());
  }
  if (!c.gemm.empty()) print_points(out, c, "gemm", 0);
  if (c.hbm) {
    std::fprintf(out, "## hbm: fraction %.4f +- %.4f of %.3g TB/s\n", c.hbm->fraction, c.hbm->fraction_uncertainty,
                 c.hbm->peak_bytes_per_s / 1e12);
    print_points(out, c, "hbm", 0);
  }
  for (const auto& s : c.storage) {
    std::fprintf(out, "## storage %s %s (qd %d x %d jobs): %.4g GB/s max (%s), %.4g IOPS max (%s)\n", s.access.c_str(),
                 s.direction.c_str(), s.iodepth, s.numjobs, s.max_bandwidth_bytes_per_s / 1e9,
                 s.bandwidth_source.c_str(), s.max_iops, s.iops_source.c_str());
  }
  if (c.transfer) {
    std::fprintf(out, "## host-device copies over PCIe at %.4g GB/s:", c.transfer->pcie_bytes_per_s / 1e9);
    if (c.transfer->host_to_device_fraction) std::fprintf(out, " H2D %.3f", *c.transfer->host_to_device_fraction);
    if (c.transfer->device_to_host_fraction) std::fprintf(out, " D2H %.3f", *c.transfer->device_to_host_fraction);
    std::fprintf(out, " of the rate\n");
  }
  if (c.attention_fraction) std::fprintf(out, "## attention: %.4f of the BF16 peak\n", *c.attention_fraction);
  if (c.kernels) print_kernel_fit(out, c);
  if (run.scaling) print_scaling(out, *run.scaling, system);
}

void write_calibration_summary(std::FILE* out, const CalibrationRun& run) {
  const calib::Calibration& c = run.calibration;
  if (c.collectives) print_fit(out, "collectives", c.collectives->result);
  for (const auto& g : c.gemm) print_fit(out, ("gemm " + g.dtype).c_str(), g.fit);
  if (c.hbm) print_fit(out, "hbm", c.hbm->fit);
  if (c.kernels) print_fit(out, "kernels gemm bf16", c.kernels->gemm.fit);
  if (c.held_out) print_fit(out, "held_out", *c.held_out);
}

std::string profile_text(const CalibrationRun& run) {
  return calib::profile_yaml(run.calibration, run.facts, run.meta);
}

std::string points_text(const CalibrationRun& run) { return calib::points_csv(run.calibration); }

}  // namespace fathom::report
