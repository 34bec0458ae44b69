// `fathom calibrate INPUT... -o PROFILE`: fits the hardware profile to one system's
// microbenchmarks (calibrate/profile/calibration.hpp), prints measured against fitted per file,
// the held-out error and the predicted busbw of larger clusters, and writes the profile a
// scenario reads with `calibration: FILE`. docs/calibration.md describes the command and the
// report.
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/measurement.hpp"
#include "calibrate/profile/calibration.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "calibrate/profile/sha256.hpp"
#include "cli/commands.hpp"
#include "cli/measured_system.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

namespace fs = std::filesystem;

struct CalibrateOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string scenario;
  std::string node;
  std::string system;
  std::vector<std::string> exclude;
  double holdout = 0;
  std::vector<std::string> holdout_files;
  std::string points;
  int nodes = 0, gpus_per_node = 0;
  std::string op, algo;
  std::vector<int> predict_nodes = {2, 4, 8, 16, 64};
};

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

// Writes `text` to `path` whole or not at all: a temporary file renamed over it.
void write_atomically(const std::string& path, const std::string& text) {
  const fs::path tmp = fs::path(path).string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::invalid_argument(path + ": cannot be written");
    }
  }
  fs::rename(tmp, path);
}

void print_fit(const char* what, const calib::FitResult& r) {
  std::printf("%s: points=%zu r2=%.4f median_rel_error=%.4f max_rel_error=%.4f\n", what, r.predicted.size(),
              r.r_squared, r.median_abs_rel_error, r.max_abs_rel_error);
}

void print_parameters(const calib::FitResult& r) {
  for (std::size_t i = 0; i < r.parameters.size(); ++i) {
    const auto& p = r.parameters[i];
    if (p.fixed) continue;
    std::printf("#   %-20s %14.6g +- %-12.3g %s\n", p.name.c_str(), p.value, r.uncertainty[i], p.unit.c_str());
  }
}

void print_points(const calib::Calibration& c, const std::string& kind, std::int64_t min_bytes) {
  std::string file;
  for (const auto& p : c.points) {
    if (p.kind != kind) continue;
    if (p.file != file) {
      file = p.file;
      std::printf("# %s\n#%27s %12s %12s %9s\n", file.c_str(), "point", ("measured " + p.unit).c_str(), "fitted",
                  "error");
    }
    const bool summarised = kind != "nccl-tests" || p.x >= static_cast<double>(min_bytes);
    std::printf("%28s %12.4g %12.4g %+8.1f%%%s%s\n", p.label.c_str(), p.measured, p.predicted, 100 * p.relative_error(),
                p.held_out ? "  held out" : "", summarised ? "" : "  (below 1 MiB)");
  }
}

void print_scaling(const calib::Calibration& c, const MeasuredSystem& system, const std::vector<int>& nodes) {
  if (c.series.empty() || nodes.empty() || !c.collectives) return;
  // The pattern: the measured series on the most nodes (the multi-node one, if any).
  const calib::BusbwSeries* most = &c.series.front();
  for (const auto& s : c.series) {
    if (s.nodes > most->nodes) most = &s;
  }
  calib::BusbwSeries scaled = *most;
  const calib::BusbwSeries* pattern = &scaled;
  // NVLS reduces inside one NVLink domain only: a single-node NVLS series scales with NCCL's
  // choice across nodes (the tree, then NVLS-tree).
  if (scaled.algorithm == coll::Algorithm::kNvls) {
    scaled.algorithm.reset();
    scaled.algo_name = "auto (the measured " + most->algo_name + " spans one node only)";
  }
  std::vector<std::int64_t> sizes;
  for (const auto& p : pattern->points) {
    if (p.bytes >= (std::int64_t{1} << 20)) sizes.push_back(p.bytes);
  }
  if (sizes.empty()) return;
  const auto table = calib::predict_scaling(cluster_for(system), c.collectives->params, *pattern, nodes, sizes);
  std::printf("## predicted %s busbw (GB/s), %d GPU(s) per node, algo %s, on %s\n", pattern->op_name.c_str(),
              pattern->gpus_per_node, pattern->algo_name.empty() ? "auto" : pattern->algo_name.c_str(),
              system.described.c_str());
  std::printf("#%13s", "size(B)");
  for (int n : nodes) std::printf(" %9d", n);
  std::printf("  nodes\n");
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    std::printf("%14lld", static_cast<long long>(sizes[j]));
    for (std::size_t i = 0; i < nodes.size(); ++i) std::printf(" %9.2f", table[i][j]);
    std::printf("\n");
  }
}

void run_calibrate(const CalibrateOptions& o) {
  // The system: a scenario, a catalog node, or a node named by the inputs' paths.
  MeasuredSystem system;
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
  if (system.accelerator.name.empty()) {
    throw std::invalid_argument("the system has no accelerator: use a scenario whose node names one");
  }

  calib::LoadOptions load;
  load.nccl.op = o.op;
  std::vector<calib::Measurement> given;
  std::vector<calib::SourceFile> sources;
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

  calib::SystemFacts facts;
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
  const calib::Calibration c = calib::calibrate(fit, held, facts, options);

  std::printf("# fathom calibrate: %zu file(s) fitted, %zu held out; system: %s (%s)\n", c.files_used.size(),
              c.files_held_out.size(), system.described.c_str(), system.accelerator.name.c_str());
  for (const auto& note : c.notes) std::printf("# note: %s\n", note.c_str());
  if (c.collectives) {
    std::printf("## collectives: fitted through fathom's collective model (closed forms); reported by simulation\n");
    print_parameters(c.collectives->result);
    for (const auto& name : c.collectives->not_identified) {
      std::printf("#   %-20s not identified by these measurements: catalog value kept\n", name.c_str());
    }
    const coll::CollectiveParams& fitted = c.collectives->params;
    for (const auto& name : c.collectives->fitted) {
      if (name == "ll128_max_bytes") {
        std::printf("#   protocols by size    LL below %.0f B, LL128 below %.0f B, Simple from there on\n",
                    fitted.ll_max_bytes, std::max(fitted.ll_max_bytes, fitted.ll128_max_bytes));
      }
      if (name == "tree_ll128_max_bytes") {
        std::printf("#   tree protocols       LL below %.0f B, LL128 below %.0f B, Simple from there on\n",
                    fitted.tree_ll_max_bytes, std::max(fitted.tree_ll_max_bytes, fitted.tree_ll128_max_bytes));
      }
      if (name == "nvls_min_bytes") {
        std::printf("#   nvls_min_bytes       %.0f B (one node: ring below, NVLS from there on)\n",
                    fitted.nvls_min_bytes);
      }
      if (name == "tree_max_bytes") {
        std::printf("#   tree_max_bytes       %.0f B (across nodes: tree below, NVLS-tree or ring from there on)\n",
                    fitted.tree_max_bytes);
      }
      if (name == "nvls_adaptive_chunk") {
        std::printf("#   nvls_adaptive_chunk  %s\n", fitted.nvls_adaptive_chunk ? "true" : "false");
      }
    }
    print_points(c, "nccl-tests", options.collective.min_bytes);
  }
  for (const auto& g : c.gemm) {
    std::printf("## gemm %s: roofline with wave quantisation over %d compute units\n", g.dtype.c_str(), g.model.sms);
    print_parameters(g.fit);
    for (const auto& name : g.not_identified) std::printf("#   %-20s not identified\n", name.c_str());
  }
  if (!c.gemm.empty()) print_points(c, "gemm", 0);
  if (c.hbm) {
    std::printf("## hbm: fraction %.4f +- %.4f of %.3g TB/s\n", c.hbm->fraction, c.hbm->fraction_uncertainty,
                c.hbm->peak_bytes_per_s / 1e12);
    print_points(c, "hbm", 0);
  }
  for (const auto& s : c.storage) {
    std::printf("## storage %s %s (qd %d x %d jobs): %.4g GB/s max (%s), %.4g IOPS max (%s)\n", s.access.c_str(),
                s.direction.c_str(), s.iodepth, s.numjobs, s.max_bandwidth_bytes_per_s / 1e9,
                s.bandwidth_source.c_str(), s.max_iops, s.iops_source.c_str());
  }
  if (c.transfer) {
    std::printf("## host-device copies over PCIe at %.4g GB/s:", c.transfer->pcie_bytes_per_s / 1e9);
    if (c.transfer->host_to_device_fraction) std::printf(" H2D %.3f", *c.transfer->host_to_device_fraction);
    if (c.transfer->device_to_host_fraction) std::printf(" D2H %.3f", *c.transfer->device_to_host_fraction);
    std::printf(" of the rate\n");
  }
  if (c.attention_fraction) std::printf("## attention: %.4f of the BF16 peak\n", *c.attention_fraction);
  print_scaling(c, system, o.predict_nodes);

  calib::ProfileMeta meta;
  // The system's name: --system, else the first input folder's name (a file's folder).
  const fs::path first =
      fs::is_directory(o.inputs.front()) ? fs::path(o.inputs.front()) : fs::path(o.inputs.front()).parent_path();
  meta.system = !o.system.empty() ? o.system : fs::absolute(first).lexically_normal().filename().string();
  meta.created = utc_now();
  meta.tool = std::string("fathom calibrate (fathom ") + FATHOM_VERSION + ")";
  meta.sources = sources;
  const std::string profile = calib::profile_yaml(c, facts, meta);
  if (!o.points.empty()) write_atomically(o.points, calib::points_csv(c));
  write_atomically(o.output, profile);

  if (c.collectives) print_fit("collectives", c.collectives->result);
  for (const auto& g : c.gemm) print_fit(("gemm " + g.dtype).c_str(), g.fit);
  if (c.hbm) print_fit("hbm", c.hbm->fit);
  if (c.held_out) print_fit("held_out", *c.held_out);
  std::printf("wrote %s\n", o.output.c_str());
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit the hardware profile to microbenchmark results (nccl-tests, GEMM, STREAM, fio, nvbandwidth)");
  cmd->add_option("inputs", options->inputs, "measurement files or folders of them")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("-o,--output", options->output, "the profile to write (YAML)")->required();
  cmd->add_option("--scenario", options->scenario, "the measured system as a scenario (node, fabric, accelerator)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--node", options->node,
                  "the measured system as a catalog node (dgx-h100, ...), on fathom's default fabric; default: "
                  "guessed from the inputs' paths");
  cmd->add_option("--system", options->system, "a name for the system in the profile (default: the first input's)");
  cmd->add_option("--exclude", options->exclude, "leave out files matching this glob (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--holdout", options->holdout, "keep this fraction of every file's points out of the fit")
      ->check(CLI::Range(0.0, 0.95));
  cmd->add_option("--holdout-files", options->holdout_files,
                  "keep files matching this glob out of the fit and report the error on them (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--points", options->points, "also write every point, measured and fitted, as CSV");
  cmd->add_option("--nodes", options->nodes, "nodes of nccl-tests files that do not say (default: 1)");
  cmd->add_option("--gpus-per-node", options->gpus_per_node,
                  "GPUs per node of nccl-tests files that do not say (default: the node's)");
  cmd->add_option("--op", options->op, "operation of nccl-tests files that do not say");
  cmd->add_option("--algo", options->algo, "force this algorithm on every nccl-tests file");
  cmd->add_option("--predict-nodes", options->predict_nodes, "node counts to predict busbw for (default: 2 4 8 16 64)")
      ->delimiter(',');
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_calibrate(*options);
  });
}

}  // namespace fathom::cli
