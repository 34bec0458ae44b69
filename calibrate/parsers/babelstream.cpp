// BabelStream's default output:
//   BabelStream
//   Version: 4.0
//   Implementation: CUDA
//   ...
//   Using CUDA device NVIDIA A100-SXM4-80GB
//   Function    MBytes/sec  Min (sec)   Max         Average
//   Copy        1709360.800 0.00031     0.00032     0.00032
//   ...
// The banner lines are optional; the table is required. A table row names a kernel and gives
// four numbers; the table ends at the first line that is neither a row nor blank.
#include <cmath>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/stream.hpp"
#include "calibrate/parsers/stream_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {
namespace {

constexpr const char* kUnits = "MBytes/sec, MiBytes/sec, GBytes/sec or GiBytes/sec";

// Bytes per second in one unit of the table's rate column; 0 for an unknown unit.
double rate_unit(std::string_view unit) {
  if (unit == "MBytes/sec") return 1e6;
  if (unit == "MiBytes/sec") return 1024.0 * 1024.0;
  if (unit == "GBytes/sec") return 1e9;
  if (unit == "GiBytes/sec") return 1024.0 * 1024.0 * 1024.0;
  return 0;
}

bool is_known_kernel(std::string_view word) {
  for (const std::string& k : stream_kernels()) {
    if (text::lower(k) == text::lower(word)) return true;
  }
  return false;
}

std::string after_colon(std::string_view t) {
  const std::size_t colon = t.find(':');
  return colon == std::string_view::npos ? std::string() : std::string(text::trim(t.substr(colon + 1)));
}

}  // namespace

StreamBandwidth parse_babelstream_text(std::string_view text, const std::string& file, const std::string& memory) {
  StreamBandwidth result;
  result.file = file;
  result.source = StreamSource::babelstream;
  double unit = 0;
  bool in_table = false;
  int last_line = 1;
  for (const text::Line& line : text::split_lines(text)) {
    last_line = line.number;
    const std::string_view t = text::trim(line.text);
    if (t.empty()) continue;
    const text::Where where{file, line.number};
    const std::vector<std::string_view> tokens = text::split_ws(t);
    if (tokens.front() == "Function") {
      if (tokens.size() < 2 || rate_unit(tokens[1]) == 0) {
        where.fail("header", std::string("\"Function\" and a rate in ") + kUnits, quote(t));
      }
      unit = rate_unit(tokens[1]);
      in_table = true;
      continue;
    }
    if (in_table) {
      const bool numbers = tokens.size() == 5 && text::to_double(tokens[1]) && text::to_double(tokens[2]) &&
                           text::to_double(tokens[3]) && text::to_double(tokens[4]);
      if (is_known_kernel(tokens.front()) || numbers) {
        detail::check_kernel(where, tokens.front(), "function (column 1)");
        if (tokens.size() != 5) {
          where.fail("row", "5 columns: function, rate, min, max and average seconds",
                     std::to_string(tokens.size()) + " columns: " + quote(t));
        }
        StreamPoint p;
        p.kernel = tokens[0];
        p.line = line.number;
        p.bytes_per_s = where.number(tokens[1], "rate (column 2)", 0) * unit;
        p.min_s = where.number(tokens[2], "Min (sec) (column 3)", 0);
        p.max_s = where.number(tokens[3], "Max (column 4)", 0);
        p.avg_s = where.number(tokens[4], "Average (column 5)", 0);
        result.kernels.push_back(std::move(p));
        continue;
      }
      in_table = false;
    }
    if (text::starts_with(t, "Version:")) {
      result.version = after_colon(t);
    } else if (text::starts_with(t, "Implementation:")) {
      result.implementation = after_colon(t);
    } else if (text::starts_with(t, "Precision:")) {
      result.precision = after_colon(t);
    } else if (tokens.size() >= 4 && tokens[0] == "Using" && tokens[2] == "device") {
      const std::size_t at = t.find("device");
      result.device = std::string(text::trim(t.substr(at + 6)));
    }
  }
  if (result.kernels.empty()) {
    throw ParseError(file, last_line, "rows",
                     "BabelStream's table (\"Function MBytes/sec Min (sec) Max Average\" and kernel rows)",
                     text::is_blank(text) ? "an empty file" : "none");
  }
  result.memory = detail::stream_memory(file, memory, "");
  return result;
}

StreamBandwidth parse_babelstream(const std::filesystem::path& file, const std::string& memory) {
  const std::string content = text::read_file(file);
  return parse_babelstream_text(content, file.string(), memory);
}

}  // namespace fathom::calib
