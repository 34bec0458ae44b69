// Shared pieces of the microbenchmark parsers: reading a file, cutting it into numbered lines,
// tokens and CSV cells, and strict number parsing that reports where a value is wrong. Every
// function here is total: malformed input gives a ParseError or an empty optional, never
// undefined behaviour.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/errors.hpp"

namespace fathom::calib::text {

// One line of a file, without its "\n" or "\r\n"; `number` counts from 1.
struct Line {
  std::string_view text;
  int number = 0;
};

// The bytes of `path`; a ParseError naming the file when it is missing, a folder or unreadable.
std::string read_file(const std::filesystem::path& path);

// `text` cut at "\n"; a trailing "\r" is dropped from each line and a UTF-8 byte-order mark
// from the first. A final newline does not start another line.
std::vector<Line> split_lines(std::string_view text);

// True when `text` holds nothing but spaces, tabs and line ends.
bool is_blank(std::string_view text);

std::string_view trim(std::string_view text);

// Tokens separated by spaces and tabs.
std::vector<std::string_view> split_ws(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
bool contains(std::string_view text, std::string_view part);
std::string lower(std::string_view text);

// A whole token as a number: digits with an optional sign for integers, decimal or scientific
// for reals; nan, inf, overflow and trailing bytes give nullopt.
std::optional<std::int64_t> to_int64(std::string_view token);
std::optional<double> to_double(std::string_view token);

// A byte count as fio and nccl-tests write it: digits with an optional suffix k, m, g, t or p
// (either case, optionally followed by "b", "ib" or "iB"), all powers of 1024; a bare "b"/"B"
// means bytes. "1M" = 1048576, "512k" = 524288, "4096B" = 4096, "16g" = 17179869184.
std::optional<std::int64_t> to_byte_size(std::string_view token);

// `items` joined by `separator`.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// A place in a file, for errors, and the checked conversions that throw at it.
struct Where {
  const std::string& file;
  int line;

  [[noreturn]] void fail(const std::string& field, const std::string& expected, const std::string& found) const;

  // `token` as an integer >= `min`, else a ParseError naming `field`.
  std::int64_t integer(std::string_view token, const std::string& field, std::int64_t min) const;
  // `token` as a finite real >= `min`, else a ParseError naming `field`.
  double number(std::string_view token, const std::string& field, double min) const;
  // `token` if it is non-empty, else a ParseError naming `field`.
  std::string word(std::string_view token, const std::string& field) const;
};

// A CSV file: its header cells and data rows, each with its line. Blank lines are skipped.
// Cells are trimmed; a cell may be double-quoted ("a, b" with "" for a quote) within one line.
struct CsvRow {
  std::vector<std::string> cells;
  int line = 0;
};
struct Csv {
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<CsvRow> rows;
};

// Throws a ParseError for an empty file or an unterminated quote.
Csv read_csv(std::string_view text, const std::string& file);

// The header as one line, "a,b,c", for messages and dispatch.
std::string header_text(const Csv& csv);

// Checks that `csv.header` is `expected` (cells compared exactly), else a ParseError at the
// header line listing `accepted`.
void expect_header(const Csv& csv, const std::string& file, const std::vector<std::string>& expected,
                   const std::vector<std::string>& accepted);

// Checks that `row` has `count` cells, else a ParseError naming the row's line.
void expect_cells(const CsvRow& row, const std::string& file, std::size_t count, const std::string& header);

// At least one data row, else a ParseError at the line after the header.
void expect_rows(const Csv& csv, const std::string& file, const std::string& what);

}  // namespace fathom::calib::text
