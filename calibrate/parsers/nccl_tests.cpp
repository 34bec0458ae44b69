// What the nccl-tests log and CSV parsers share: busbw(), same_measurement(), the require_*
// accessors and the caller's options.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/nccl_tests_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::vector<std::string>& nccl_tests_ops() {
  static const std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv",
                                               "broadcast",  "reduce",     "gather",         "scatter",  "hypercube"};
  return ops;
}

double busbw(const NcclTestsRow& row) {
  if (row.in_place) return row.in_place->busbw_gbps;
  if (row.out_of_place) return row.out_of_place->busbw_gbps;
  return std::nan("");
}

namespace {

// nccl-tests prints busbw with two decimals; two readings of one printed value differ by less
// than half a unit in the last place.
bool same_printed_busbw(double a, double b) {
  return std::abs(a - b) <= 0.005 + 1e-9 * std::max(std::abs(a), std::abs(b));
}

// Compares the placement both rows have; false when they share none.
bool same_row(const NcclTestsRow& a, const NcclTestsRow& b) {
  if (a.bytes != b.bytes) return false;
  bool compared = false;
  if (a.in_place && b.in_place) {
    if (!same_printed_busbw(a.in_place->busbw_gbps, b.in_place->busbw_gbps)) return false;
    compared = true;
  }
  if (a.out_of_place && b.out_of_place) {
    if (!same_printed_busbw(a.out_of_place->busbw_gbps, b.out_of_place->busbw_gbps)) return false;
    compared = true;
  }
  return compared;
}

std::string ops_list() { return "one of " + text::join(nccl_tests_ops(), ", "); }

}  // namespace

bool same_measurement(const NcclTestsLog& a, const NcclTestsLog& b) {
  if (a.rows.empty() || a.rows.size() != b.rows.size()) return false;
  if (!a.op.empty() && !b.op.empty() && a.op != b.op) return false;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    if (!same_row(a.rows[i], b.rows[i])) return false;
  }
  return true;
}

int require_ranks(const NcclTestsLog& log) {
  if (log.ranks > 0) return log.ranks;
  throw ParseError(log.file, 0, "ranks", "\"#  Rank N ... on HOST device N\" lines, or ranks supplied by the caller",
                   "none");
}

int require_nodes(const NcclTestsLog& log) {
  if (log.nodes > 0) return log.nodes;
  throw ParseError(log.file, 0, "nodes",
                   "\"#  Rank N ... on HOST device N\" lines naming the hosts, or nodes supplied by the caller",
                   "none");
}

int require_gpus_per_node(const NcclTestsLog& log) {
  if (log.gpus_per_node > 0) return log.gpus_per_node;
  if (!log.rank_lines.empty()) {
    throw ParseError(log.file, log.rank_lines.front().line, "gpus_per_node",
                     "the same number of ranks on every host, or GPUs per node supplied by the caller",
                     "hosts with different numbers of ranks");
  }
  throw ParseError(log.file, 0, "gpus_per_node",
                   "\"#  Rank N ... on HOST device N\" lines, or GPUs per node supplied by the caller", "none");
}

const std::vector<NcclTestsRow>& require_rows(const NcclTestsLog& log) {
  if (!log.rows.empty()) return log.rows;
  throw ParseError(log.file, 0, "rows", "at least one data row", "none");
}

const std::string& require_op(const NcclTestsLog& log) {
  if (!log.op.empty()) return log.op;
  throw ParseError(log.file, log.command_line_line, "op",
                   "a binary name such as all_reduce_perf on the command line, or an op supplied by the caller",
                   "none");
}

namespace detail {

std::string op_from_binary(std::string_view name) {
  const std::size_t slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (text::ends_with(name, "_mpi")) name.remove_suffix(4);
  if (!text::ends_with(name, "_perf")) return "";
  name.remove_suffix(5);
  const auto& ops = nccl_tests_ops();
  return std::find(ops.begin(), ops.end(), name) != ops.end() ? std::string(name) : std::string();
}

std::string op_from_file_name(std::string_view file_name) {
  const std::string stem = std::filesystem::path(std::string(file_name)).stem().string();
  std::string best;
  for (const std::string& op : nccl_tests_ops()) {
    if (text::contains(stem, op) && op.size() > best.size()) best = op;
  }
  return best;
}

void apply_nccl_options(NcclTestsLog& log, const NcclTestsOptions& options, int op_line, int rank_line) {
  if (!options.op.empty()) {
    const auto& ops = nccl_tests_ops();
    if (std::find(ops.begin(), ops.end(), options.op) == ops.end()) {
      throw ParseError(log.file, 0, "op (supplied by the caller)", ops_list(), quote(options.op));
    }
    if (!log.op.empty() && log.op != options.op) {
      throw ParseError(log.file, op_line, "op", quote(options.op) + " as the caller says", quote(log.op));
    }
    log.op = options.op;
  }
  const auto merge = [&](int& known, int supplied, const char* field, const std::string& counted) {
    if (supplied < 0) {
      throw ParseError(log.file, 0, std::string(field) + " (supplied by the caller)", "a whole number >= 1",
                       std::to_string(supplied));
    }
    if (supplied == 0) return;
    if (known > 0 && known != supplied) {
      throw ParseError(log.file, rank_line, field, std::to_string(supplied) + " as the caller says",
                       std::to_string(known) + " " + counted);
    }
    known = supplied;
  };
  merge(log.ranks, options.ranks, "ranks", "from the rank lines");
  merge(log.nodes, options.nodes, "nodes", "hosts in the rank lines");
  merge(log.gpus_per_node, options.gpus_per_node, "gpus_per_node", "ranks per host in the rank lines");
}

}  // namespace detail
}  // namespace fathom::calib
