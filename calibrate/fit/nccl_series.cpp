#include "calibrate/fit/nccl_series.hpp"

#include <stdexcept>

namespace fathom::calib {

namespace {

// The flag's value, else the file's, else the default (recorded as assumed), else an error.
int resolve_count(int flag, int from_file, int fallback, const std::string& file, const char* what, const char* option,
                  std::vector<std::string>& assumed) {
  if (flag > 0) return flag;
  if (from_file > 0) return from_file;
  if (fallback > 0) {
    assumed.push_back(std::string(what) + " = " + std::to_string(fallback) + " (the file does not say)");
    return fallback;
  }
  throw std::invalid_argument(file + ": the " + what + " is unknown: pass " + option);
}

}  // namespace

BusbwSeries busbw_series(const NcclTestsLog& log, const SeriesOptions& options) {
  BusbwSeries s;
  s.file = log.file;
  require_rows(log);
  s.nodes =
      resolve_count(options.nodes, log.nodes, options.default_nodes, log.file, "node count", "--nodes", s.assumed);
  s.gpus_per_node = resolve_count(options.gpus_per_node, log.gpus_per_node, options.default_gpus_per_node, log.file,
                                  "GPUs per node", "--gpus-per-node", s.assumed);
  s.op_name = !options.op.empty() ? options.op : log.op;
  if (s.op_name.empty()) throw std::invalid_argument(log.file + ": the operation is unknown: pass --op");
  s.op = coll::parse_nccl_op(s.op_name, log.file + ": op");
  s.algo_name = !options.algo.empty() ? options.algo : log.algo;
  s.algorithm = coll::parse_nccl_algo(s.algo_name, options.algo.empty() ? log.file + ": NCCL_ALGO" : "--algo");
  if (s.algorithm == coll::Algorithm::kNvls && s.nodes > 1) {
    throw std::invalid_argument((options.algo.empty() ? log.file + ": NCCL_ALGO=" : std::string("--algo ")) +
                                s.algo_name + " on " + std::to_string(s.nodes) +
                                " nodes: NVLS runs inside one node; across nodes NCCL runs NVLS-tree (nvlstree)");
  }
  if (auto it = log.env.find("NCCL_PROTO"); it != log.env.end()) {
    bool list = false;
    s.protocol = coll::parse_nccl_proto(it->second, log.file + ": NCCL_PROTO", &list);
    if (list) s.assumed.push_back("protocol chosen per size: NCCL_PROTO=" + it->second + " names no single one");
  }
  // The algorithm every row states (require_rows: there is a first row), else none.
  s.algo_stated = log.rows.front().algo_stated;
  for (const auto& row : log.rows) {
    if (row.algo_stated != s.algo_stated) s.algo_stated.clear();
  }
  std::vector<int> unmeasured;  // lines of rows whose bandwidth printed as 0 (too small to show)
  for (const auto& row : log.rows) {
    const double measured = busbw(row);
    if (measured > 0 && row.bytes > 0) {
      s.points.push_back({row.bytes, measured, row.line});
    } else {
      unmeasured.push_back(row.line);
    }
  }
  if (!unmeasured.empty()) {
    s.assumed.push_back("the " + std::to_string(unmeasured.size()) +
                        " row(s) whose bus bandwidth reads 0 too small to measure, and left them out (line " +
                        std::to_string(unmeasured.front()) + (unmeasured.size() > 1 ? " and later)" : ")"));
  }
  if (s.points.empty()) throw std::invalid_argument(log.file + ": no row with a positive bus bandwidth");
  return s;
}

void apply_stated_algorithm(BusbwSeries& series, bool nvls_hardware) {
  if (series.algorithm || series.algo_stated.empty()) return;
  const auto stated = coll::parse_nccl_algo(series.algo_stated, series.file + ": algo_stated");
  if (!stated) return;
  if (*stated == coll::Algorithm::kNvls && series.nodes > 1) {
    // NVLS reduces inside one NVLink domain; NCCL joins nodes with NVLS-tree instead.
    throw std::invalid_argument(series.file + ": the file states " + series.algo_stated +
                                ", which runs inside one node, but the measurement is taken as " +
                                std::to_string(series.nodes) + " nodes; pass --nodes 1, or check the file");
  }
  const bool needs_nvls = *stated == coll::Algorithm::kNvls || *stated == coll::Algorithm::kNvlsTree;
  if (needs_nvls && !nvls_hardware) {
    series.assumed.push_back("algorithm chosen per size: the file states " + series.algo_stated +
                             ", which this system (no in-switch reduction) cannot run");
    return;
  }
  series.algorithm = stated;
  series.algo_name = series.algo_stated;
  series.assumed.push_back("algorithm " + series.algo_stated + " at every size, as the file states");
}

}  // namespace fathom::calib
