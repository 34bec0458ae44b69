// The calibration CSVs of STREAM kernels: kernel,bandwidth_TBps and kernel,bandwidth_GBps.
#include <algorithm>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/stream.hpp"
#include "calibrate/parsers/stream_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kHbmCsvHeader = "kernel,bandwidth_TBps";
const std::string kCpuStreamCsvHeader = "kernel,bandwidth_GBps";

const std::vector<std::string>& stream_kernels() {
  static const std::vector<std::string> kernels = {"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"};
  return kernels;
}

namespace detail {

std::string stream_memory(const std::string& file, const std::string& supplied, const std::string& from_content) {
  if (!supplied.empty()) {
    if (supplied != "hbm" && supplied != "cpu") {
      throw ParseError(file, 0, "memory (supplied by the caller)", "\"hbm\" or \"cpu\"", quote(supplied));
    }
    return supplied;
  }
  const std::string name = text::lower(std::filesystem::path(file).filename().string());
  if (text::contains(name, "hbm")) return "hbm";
  if (text::contains(name, "cpu")) return "cpu";
  return from_content;
}

void check_kernel(const text::Where& where, std::string_view kernel, const std::string& field) {
  const auto& kernels = stream_kernels();
  if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) {
    where.fail(field, "one of " + text::join(kernels, ", "), quote(kernel));
  }
}

}  // namespace detail

StreamBandwidth parse_stream_csv_text(std::string_view text, const std::string& file, const std::string& memory) {
  const text::Csv csv = text::read_csv(text, file);
  const bool terabytes = csv.header == std::vector<std::string>{"kernel", "bandwidth_TBps"};
  if (!terabytes) {
    text::expect_header(csv, file, {"kernel", "bandwidth_GBps"}, {kHbmCsvHeader, kCpuStreamCsvHeader});
  }
  text::expect_rows(csv, file, "kernel");
  StreamBandwidth result;
  result.file = file;
  result.source = StreamSource::csv;
  result.memory = detail::stream_memory(file, memory, "");
  const std::string& header = terabytes ? kHbmCsvHeader : kCpuStreamCsvHeader;
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 2, header);
    const text::Where where{file, row.line};
    StreamPoint p;
    p.line = row.line;
    detail::check_kernel(where, row.cells[0], "kernel (column 1)");
    p.kernel = row.cells[0];
    const double value = where.number(row.cells[1], csv.header[1] + " (column 2)", 0);
    p.bytes_per_s = value * (terabytes ? 1e12 : 1e9);
    result.kernels.push_back(std::move(p));
  }
  return result;
}

StreamBandwidth parse_stream_csv(const std::filesystem::path& file, const std::string& memory) {
  const std::string content = text::read_file(file);
  return parse_stream_csv_text(content, file.string(), memory);
}

}  // namespace fathom::calib
