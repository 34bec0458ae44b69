// The attention throughput CSV: implementation,tflops.
#include "calibrate/errors.hpp"
#include "calibrate/parsers/attention.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

const std::string kAttentionCsvHeader = "implementation,tflops";

AttentionResult parse_attention_csv_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  text::expect_header(csv, file, {"implementation", "tflops"}, {kAttentionCsvHeader});
  text::expect_rows(csv, file, "attention");
  AttentionResult result;
  result.file = file;
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, 2, kAttentionCsvHeader);
    const text::Where where{file, row.line};
    AttentionPoint p;
    p.line = row.line;
    p.implementation = where.word(row.cells[0], "implementation (column 1)");
    p.tflops = where.number(row.cells[1], "tflops (column 2)", 0);
    result.points.push_back(std::move(p));
  }
  return result;
}

AttentionResult parse_attention_csv(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_attention_csv_text(content, file.string());
}

}  // namespace fathom::calib
