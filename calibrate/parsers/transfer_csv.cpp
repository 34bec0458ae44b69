// The copy-bandwidth calibration CSV: test,bandwidth_GBps.
#include "calibrate/errors.hpp"
#include "calibrate/parsers/text.hpp"
#include "calibrate/parsers/transfer.hpp"

namespace fathom::calib {

const std::string kTransferCsvHeader = "test,bandwidth_GBps";

TransferBandwidth parse_transfer_csv_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  text::expect_header(csv, file, {"test", "bandwidth_GBps"}, {kTransferCsvHeader});
  text::expect_rows(csv, file, "bandwidth");
  TransferBandwidth result;
  result.file = file;
  result.source = TransferSource::csv;
  const std::string name = text::lower(std::filesystem::path(file).filename().string());
  result.tool = text::contains(name, "transferbench") ? "transferbench"
                : text::contains(name, "nvbandwidth") ? "nvbandwidth"
                                                      : "";
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 2, kTransferCsvHeader);
    const text::Where where{file, row.line};
    TransferPoint p;
    p.line = row.line;
    p.test = where.word(row.cells[0], "test (column 1)");
    p.bandwidth_bytes_per_s = where.number(row.cells[1], "bandwidth_GBps (column 2)", 0) * 1e9;
    p.basis = TransferBasis::as_published;
    result.tests.push_back(std::move(p));
  }
  return result;
}

TransferBandwidth parse_transfer_csv(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_transfer_csv_text(content, file.string());
}

}  // namespace fathom::calib
