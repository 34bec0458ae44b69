// superbenchmark's cublaslt_gemm output. The program prints one line per run,
//   m <TAB> n <TAB> k <TAB> batch <TAB> time_us <TAB> tflops
// and nothing else; superbench reads exactly these six fields. A file may hold many such
// lines, each optionally after the command that produced it ("cublaslt_gemm -m 1024 ... -t
// fp8e4m3"), whose -t/--in_type names the data type of the lines after it. Blank lines and
// lines starting with '#' are comments; any other line is an error.
#include <algorithm>
#include <cctype>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/gemm.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {
namespace {

constexpr const char* kRowShape = "6 numbers: m n k batch time_us tflops";

bool starts_with_digit(std::string_view t) { return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0])); }

}  // namespace

GemmSweep parse_cublaslt_gemm_text(std::string_view text, const std::string& file, const std::string& dtype) {
  const auto& dtypes = gemm_dtypes();
  const auto known = [&](std::string_view d) { return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end(); };
  if (!dtype.empty() && !known(dtype)) {
    throw ParseError(file, 0, "dtype (supplied by the caller)", "one of " + text::join(dtypes, ", "), quote(dtype));
  }
  GemmSweep sweep;
  sweep.file = file;
  sweep.source = GemmSource::cublaslt;
  std::string current = dtype;
  int last_line = 1;
  for (const text::Line& line : text::split_lines(text)) {
    last_line = line.number;
    const std::string_view t = text::trim(line.text);
    if (t.empty() || t.front() == '#') continue;
    const text::Where where{file, line.number};
    const std::vector<std::string_view> tokens = text::split_ws(t);
    if (!starts_with_digit(tokens.front())) {
      const bool command = std::any_of(tokens.begin(), tokens.end(), [](std::string_view w) {
        return text::contains(w, "cublaslt_gemm") || text::contains(w, "hipblaslt_gemm") ||
               text::contains(w, "cublaslt_fp8_gemm");
      });
      if (!command) where.fail("line", std::string(kRowShape) + ", or the cublaslt_gemm command line", quote(t));
      for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (tokens[i] != "-t" && tokens[i] != "--in_type") continue;
        if (!known(tokens[i + 1]))
          where.fail("-t (command line)", "one of " + text::join(dtypes, ", "), quote(tokens[i + 1]));
        current = tokens[i + 1];
      }
      continue;
    }
    if (tokens.size() != 6) where.fail("line", kRowShape, std::to_string(tokens.size()) + " fields: " + quote(t));
    if (current.empty()) {
      where.fail("dtype", "a -t option on a cublaslt_gemm command line before this line, or a dtype from the caller",
                 "none");
    }
    GemmPoint p;
    p.line = line.number;
    p.dtype = current;
    p.m = where.integer(tokens[0], "m (field 1)", 1);
    p.n = where.integer(tokens[1], "n (field 2)", 1);
    p.k = where.integer(tokens[2], "k (field 3)", 1);
    p.batch = where.integer(tokens[3], "batch (field 4)", 0);
    p.time_us = where.number(tokens[4], "time_us (field 5)", 0);
    p.tflops = where.number(tokens[5], "tflops (field 6)", 0);
    sweep.points.push_back(std::move(p));
  }
  if (sweep.points.empty()) {
    throw ParseError(file, last_line, "rows", std::string("cublaslt_gemm result lines (") + kRowShape + ")",
                     text::is_blank(text) ? "an empty file" : "none");
  }
  return sweep;
}

GemmSweep parse_cublaslt_gemm(const std::filesystem::path& file, const std::string& dtype) {
  const std::string content = text::read_file(file);
  return parse_cublaslt_gemm_text(content, file.string(), dtype);
}

}  // namespace fathom::calib
