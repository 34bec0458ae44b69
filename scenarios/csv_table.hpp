// CsvTable: a CSV file read row by row with every cell located, for the trace readers. The header
// names the columns; a reader asks for the ones it needs by name, then walks the rows. Cells are
// split on commas (the traces fathom reads quote nothing); a UTF-8 byte order mark, blank lines
// and a missing final newline are accepted. Every error is a ScenarioError at FILE:LINE:COLUMN
// whose key is the column's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/errors.hpp"

namespace fathom::scenario {

class CsvTable {
 public:
  // `text` has LF line endings (sim::uniform_line_endings); it must outlive the table.
  CsvTable(std::string file, std::string_view text);

  // The header's cells.
  const std::vector<std::string_view>& header() const { return header_; }
  // The index of the column named `name`; an error at the header when there is none, saying that
  // the file should have `all` (the columns the reader needs, for the message).
  std::size_t column(std::string_view name, std::string_view all) const;
  // The index of `name`, or -1 when the header lacks it.
  std::ptrdiff_t find(std::string_view name) const;

  // Moves to the next row that is not blank; false at the end. A row with another number of
  // cells than the header is an error.
  bool next();
  int line() const { return line_; }
  std::string_view row_text() const { return row_; }

  // The cell's text, possibly empty.
  std::string_view text(std::size_t col) const { return cells_[col]; }
  // The cell's text; an empty cell is an error.
  std::string_view value(std::size_t col) const;
  // A non-negative decimal without exponent (seconds, say): `what` names it in errors.
  double non_negative(std::size_t col, std::string_view what) const;
  // A whole number in [min, max].
  std::int64_t whole(std::size_t col, std::int64_t min, std::int64_t max) const;

  [[noreturn]] void fail(std::size_t col, const std::string& expected, const std::string& found) const;

 private:
  void split(std::string_view line, std::vector<std::string_view>& cells, std::vector<int>& columns) const;

  std::string file_;
  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 0;
  std::vector<std::string_view> header_;
  std::vector<int> header_columns_;
  std::string_view row_;
  std::vector<std::string_view> cells_;
  std::vector<int> columns_;
};

}  // namespace fathom::scenario
