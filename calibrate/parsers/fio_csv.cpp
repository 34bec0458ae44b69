// The fio calibration CSV: one row per fio run with its options and the bandwidth in GB/s.
#include <algorithm>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/fio.hpp"
#include "calibrate/parsers/fio_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kFioCsvHeader = "test,fio_rw,block_size,iodepth,numjobs,ioengine,direct,bandwidth_GBps";

const std::vector<std::string>& fio_rw_modes() {
  static const std::vector<std::string> modes = {"read", "write",     "trim",   "randread",  "randwrite",    "randtrim",
                                                 "rw",   "readwrite", "randrw", "trimwrite", "randtrimwrite"};
  return modes;
}

namespace detail {

std::string fio_direction(const std::string& rw) {
  if (rw == "read" || rw == "randread") return "read";
  if (rw == "write" || rw == "randwrite") return "write";
  if (rw == "trim" || rw == "randtrim") return "trim";
  return "";
}

bool is_fio_rw(std::string_view rw) {
  const auto& modes = fio_rw_modes();
  return std::find(modes.begin(), modes.end(), rw) != modes.end();
}

}  // namespace detail

FioRuns parse_fio_csv_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  text::expect_header(csv, file,
                      {"test", "fio_rw", "block_size", "iodepth", "numjobs", "ioengine", "direct", "bandwidth_GBps"},
                      {kFioCsvHeader});
  text::expect_rows(csv, file, "fio");
  FioRuns runs;
  runs.file = file;
  runs.source = FioSource::csv;
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 8, kFioCsvHeader);
    const text::Where where{file, row.line};
    FioResult r;
    r.line = row.line;
    r.test = where.word(row.cells[0], "test (column 1)");
    if (!detail::is_fio_rw(row.cells[1])) {
      where.fail("fio_rw (column 2)", "one of " + text::join(fio_rw_modes(), ", "), quote(row.cells[1]));
    }
    r.rw = row.cells[1];
    r.direction = detail::fio_direction(r.rw);
    const auto bs = text::to_byte_size(row.cells[2]);
    if (!bs || *bs <= 0)
      where.fail("block_size (column 3)", "a block size such as 4k, 512k or 1M", quote(row.cells[2]));
    r.block_size_bytes = *bs;
    r.iodepth = static_cast<int>(std::min<std::int64_t>(where.integer(row.cells[3], "iodepth (column 4)", 1), 1 << 30));
    r.numjobs = static_cast<int>(std::min<std::int64_t>(where.integer(row.cells[4], "numjobs (column 5)", 1), 1 << 30));
    r.ioengine = where.word(row.cells[5], "ioengine (column 6)");
    if (row.cells[6] != "0" && row.cells[6] != "1") where.fail("direct (column 7)", "0 or 1", quote(row.cells[6]));
    r.direct = row.cells[6] == "1";
    r.bandwidth_bytes_per_s = where.number(row.cells[7], "bandwidth_GBps (column 8)", 0) * 1e9;
    runs.results.push_back(std::move(r));
  }
  return runs;
}

FioRuns parse_fio_csv(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_fio_csv_text(content, file.string());
}

}  // namespace fathom::calib
