// The CSV forms of nccl-tests results in data/calibration-data/: every column of a log row
// (hgx-h100-ib-2node/*.csv), and the in-place busbw alone as a results page publishes it
// (azure-*/nccl_all_reduce*.csv, rccl_all_reduce.csv). The header picks the form.
#include <cmath>
#include <limits>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/nccl_tests.hpp"
#include "calibrate/parsers/nccl_tests_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kNcclTestsCsvHeader =
    "size_bytes,count,type,redop,root,oop_time_us,oop_algbw_GBps,oop_busbw_GBps,oop_wrong,ip_time_us,ip_algbw_GBps,"
    "ip_busbw_GBps,ip_wrong";
const std::string kNcclTestsBusbwCsvHeader = "size_label_source,size_bytes_derived,algo_stated,busbw_inplace_GBps";

namespace {

std::vector<std::string> cells_of(const std::string& header) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = header.find(',', start);
    cells.push_back(header.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

std::string column(const std::vector<std::string>& header, std::size_t i) {
  return header[i] + " (column " + std::to_string(i + 1) + ")";
}

Placement read_placement(const text::CsvRow& row, std::size_t at, const std::vector<std::string>& header,
                         const text::Where& where) {
  Placement p;
  p.time_us = where.number(row.cells[at], column(header, at), 0);
  p.algbw_gbps = where.number(row.cells[at + 1], column(header, at + 1), 0);
  p.busbw_gbps = where.number(row.cells[at + 2], column(header, at + 2), 0);
  if (row.cells[at + 3] != "N/A") p.wrong = where.integer(row.cells[at + 3], column(header, at + 3), 0);
  return p;
}

NcclTestsRow full_row(const text::CsvRow& row, const std::string& file, const std::vector<std::string>& header) {
  text::expect_cells(row, file, header.size(), kNcclTestsCsvHeader);
  const text::Where where{file, row.line};
  NcclTestsRow r;
  r.line = row.line;
  r.bytes = where.integer(row.cells[0], column(header, 0), 0);
  r.count = where.integer(row.cells[1], column(header, 1), 0);
  r.type = where.word(row.cells[2], column(header, 2));
  r.redop = where.word(row.cells[3], column(header, 3));
  r.root = static_cast<int>(std::min<std::int64_t>(where.integer(row.cells[4], column(header, 4), -1), 1 << 30));
  r.out_of_place = read_placement(row, 5, header, where);
  r.in_place = read_placement(row, 9, header, where);
  return r;
}

NcclTestsRow busbw_row(const text::CsvRow& row, const std::string& file, const std::vector<std::string>& header) {
  text::expect_cells(row, file, header.size(), kNcclTestsBusbwCsvHeader);
  const text::Where where{file, row.line};
  NcclTestsRow r;
  r.line = row.line;
  r.size_label = where.word(row.cells[0], column(header, 0));
  r.bytes = where.integer(row.cells[1], column(header, 1), 1);
  r.algo_stated = where.word(row.cells[2], column(header, 2));
  Placement p;
  p.time_us = std::numeric_limits<double>::quiet_NaN();
  p.algbw_gbps = std::numeric_limits<double>::quiet_NaN();
  p.busbw_gbps = where.number(row.cells[3], column(header, 3), 0);
  r.in_place = p;
  return r;
}

}  // namespace

NcclTestsLog parse_nccl_tests_csv_text(std::string_view text, const std::string& file,
                                       const NcclTestsOptions& options) {
  const text::Csv csv = text::read_csv(text, file);
  const std::vector<std::string> full = cells_of(kNcclTestsCsvHeader);
  const std::vector<std::string> busbw_only = cells_of(kNcclTestsBusbwCsvHeader);
  NcclTestsLog log;
  log.file = file;
  if (csv.header == full) {
    log.source = NcclTestsSource::csv;
    text::expect_rows(csv, file, "nccl-tests");
    for (const text::CsvRow& row : csv.rows) log.rows.push_back(full_row(row, file, full));
  } else {
    text::expect_header(csv, file, busbw_only, {kNcclTestsCsvHeader, kNcclTestsBusbwCsvHeader});
    log.source = NcclTestsSource::busbw_csv;
    text::expect_rows(csv, file, "nccl-tests");
    for (const text::CsvRow& row : csv.rows) log.rows.push_back(busbw_row(row, file, busbw_only));
  }
  log.op = detail::op_from_file_name(file);
  // The op a file name suggests yields to the caller's.
  if (!options.op.empty()) log.op.clear();
  detail::apply_nccl_options(log, options, 0, 0);
  return log;
}

NcclTestsLog parse_nccl_tests_csv(const std::filesystem::path& file, const NcclTestsOptions& options) {
  const std::string content = text::read_file(file);
  return parse_nccl_tests_csv_text(content, file.string(), options);
}

}  // namespace fathom::calib
