// The GEMM sweep CSV: m,n,k,dtype,tflops, one row per shape and data type.
#include <algorithm>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/gemm.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kGemmCsvHeader = "m,n,k,dtype,tflops";

const std::vector<std::string>& gemm_dtypes() {
  static const std::vector<std::string> dtypes = {"fp64",    "fp32",    "tf32",    "fp16",    "bf16", "fp8e4m3",
                                                  "fp8e5m2", "fp6e3m2", "fp6e2m3", "fp4e2m1", "int8", "int4"};
  return dtypes;
}

GemmSweep parse_gemm_csv_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  text::expect_header(csv, file, {"m", "n", "k", "dtype", "tflops"}, {kGemmCsvHeader});
  text::expect_rows(csv, file, "GEMM");
  GemmSweep sweep;
  sweep.file = file;
  sweep.source = GemmSource::csv;
  const auto& dtypes = gemm_dtypes();
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 5, kGemmCsvHeader);
    const text::Where where{file, row.line};
    GemmPoint p;
    p.line = row.line;
    p.m = where.integer(row.cells[0], "m (column 1)", 1);
    p.n = where.integer(row.cells[1], "n (column 2)", 1);
    p.k = where.integer(row.cells[2], "k (column 3)", 1);
    if (std::find(dtypes.begin(), dtypes.end(), row.cells[3]) == dtypes.end()) {
      where.fail("dtype (column 4)", "one of " + text::join(dtypes, ", "), quote(row.cells[3]));
    }
    p.dtype = row.cells[3];
    p.tflops = where.number(row.cells[4], "tflops (column 5)", 0);
    sweep.points.push_back(std::move(p));
  }
  return sweep;
}

GemmSweep parse_gemm_csv(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_gemm_csv_text(content, file.string());
}

}  // namespace fathom::calib
