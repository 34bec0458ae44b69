// Vidur's NCCL profile CSV (collective_profile.hpp).
#include <algorithm>
#include <map>
#include <utility>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/collective_profile.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

namespace {

// The profiled collective of a header: "all_reduce" or "send_recv" (Vidur's names).
std::string profiled_op(const std::vector<std::string>& header) {
  for (const char* op : {"all_reduce", "send_recv"}) {
    if (header.size() > 1 && header[1] == "time_stats." + std::string(op) + ".min") return op;
  }
  return "";
}

std::size_t column(const text::Csv& csv, const std::string& file, const std::string& name) {
  for (std::size_t i = 0; i < csv.header.size(); ++i) {
    if (csv.header[i] == name) return i;
  }
  throw ParseError(file, csv.header_line, name, "a column named " + quote(name) + " (Vidur's NCCL profile)", "none");
}

}  // namespace

bool is_collective_profile_header(const std::vector<std::string>& header) {
  return !header.empty() && header[0].empty() && !profiled_op(header).empty();
}

CollectiveProfile parse_collective_profile_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  const std::string op = profiled_op(csv.header);
  if (op.empty() || !csv.header[0].empty()) {
    throw ParseError(file, csv.header_line, "header",
                     "Vidur's NCCL profile: an unnamed first column, then time_stats.all_reduce.min or "
                     "time_stats.send_recv.min",
                     quote(text::header_text(csv)));
  }
  text::expect_rows(csv, file, "NCCL profile");
  const std::size_t least = column(csv, file, "time_stats." + op + ".min");
  const std::size_t workers = column(csv, file, "num_workers");
  const std::size_t size = column(csv, file, "size");
  const std::size_t per_node = column(csv, file, "devices_per_node");
  const std::size_t collective = column(csv, file, "collective");
  const std::string header = text::header_text(csv);
  const bool all_reduce = op == "all_reduce";

  CollectiveProfile out;
  out.file = file;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> group_of;  // (workers, per node) -> log
  std::vector<std::map<std::int64_t, NcclTestsRow>> rows_of;              // per log: size -> row
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, csv.header.size(), header);
    const text::Where where{file, row.line};
    if (row.cells[collective] != op) {
      where.fail("collective (column " + std::to_string(collective + 1) + ")", quote(op) + ", as the header says",
                 quote(row.cells[collective]));
    }
    const std::int64_t n = where.integer(row.cells[workers], "num_workers", 2);
    const std::int64_t g = where.integer(row.cells[per_node], "devices_per_node", 1);
    if (n % g != 0)
      where.fail("devices_per_node", "a divisor of num_workers (" + std::to_string(n) + ")", row.cells[per_node]);
    const std::int64_t bytes = where.integer(row.cells[size], "size", 1);
    const double ms = where.number(row.cells[least], "time_stats." + op + ".min", 0);
    if (!(ms > 0)) where.fail("time_stats." + op + ".min", "a time above 0 ms", row.cells[least]);

    const auto [it, fresh] = group_of.try_emplace({n, g}, out.logs.size());
    if (fresh) {
      NcclTestsLog log;
      const std::int64_t nodes = n / g;
      log.file =
          file + " [" + std::to_string(n) + " GPUs, " + std::to_string(nodes) + (nodes == 1 ? " node]" : " nodes]");
      log.source = NcclTestsSource::csv;
      log.op = all_reduce ? "all_reduce" : "sendrecv";
      log.ranks = static_cast<int>(n);
      log.nodes = static_cast<int>(nodes);
      log.gpus_per_node = static_cast<int>(g);
      out.logs.push_back(std::move(log));
      rows_of.emplace_back();
    }
    NcclTestsRow r;
    r.bytes = bytes;
    r.line = row.line;
    Placement p;
    p.time_us = ms * 1e3;
    p.algbw_gbps = static_cast<double>(bytes) / (p.time_us * 1e3);
    p.busbw_gbps = all_reduce ? p.algbw_gbps * 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) : p.algbw_gbps;
    r.out_of_place = p;
    auto& rows = rows_of[it->second];
    const auto known = rows.find(bytes);
    if (known == rows.end() || p.time_us < known->second.out_of_place->time_us) rows[bytes] = r;
  }
  for (std::size_t i = 0; i < out.logs.size(); ++i) {
    for (auto& [bytes, r] : rows_of[i]) out.logs[i].rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace fathom::calib
