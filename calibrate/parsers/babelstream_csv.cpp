// BabelStream --csv output: one row per kernel with its best rate and timings.
#include "calibrate/errors.hpp"
#include "calibrate/parsers/stream.hpp"
#include "calibrate/parsers/stream_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kBabelStreamCsvHeader =
    "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime";
const std::string kBabelStreamMibCsvHeader =
    "function,num_times,n_elements,sizeof,max_mibytes_per_sec,min_runtime,max_runtime,avg_runtime";

StreamBandwidth parse_babelstream_csv_text(std::string_view text, const std::string& file, const std::string& memory) {
  const text::Csv csv = text::read_csv(text, file);
  const std::vector<std::string> mb = {"function",           "num_times",   "n_elements",  "sizeof",
                                       "max_mbytes_per_sec", "min_runtime", "max_runtime", "avg_runtime"};
  std::vector<std::string> mib = mb;
  mib[4] = "max_mibytes_per_sec";
  const bool binary = csv.header == mib;
  if (!binary) text::expect_header(csv, file, mb, {kBabelStreamCsvHeader, kBabelStreamMibCsvHeader});
  text::expect_rows(csv, file, "BabelStream");
  const double unit = binary ? 1024.0 * 1024.0 : 1e6;
  StreamBandwidth result;
  result.file = file;
  result.source = StreamSource::babelstream_csv;
  result.memory = detail::stream_memory(file, memory, "");
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 8, binary ? kBabelStreamMibCsvHeader : kBabelStreamCsvHeader);
    const text::Where where{file, row.line};
    detail::check_kernel(where, row.cells[0], "function (column 1)");
    where.integer(row.cells[1], "num_times (column 2)", 1);
    where.integer(row.cells[2], "n_elements (column 3)", 1);
    where.integer(row.cells[3], "sizeof (column 4)", 1);
    StreamPoint p;
    p.kernel = row.cells[0];
    p.line = row.line;
    p.bytes_per_s = where.number(row.cells[4], csv.header[4] + " (column 5)", 0) * unit;
    p.min_s = where.number(row.cells[5], "min_runtime (column 6)", 0);
    p.max_s = where.number(row.cells[6], "max_runtime (column 7)", 0);
    p.avg_s = where.number(row.cells[7], "avg_runtime (column 8)", 0);
    result.kernels.push_back(std::move(p));
  }
  return result;
}

StreamBandwidth parse_babelstream_csv(const std::filesystem::path& file, const std::string& memory) {
  const std::string content = text::read_file(file);
  return parse_babelstream_csv_text(content, file.string(), memory);
}

}  // namespace fathom::calib
