// ParseError: the one exception the calibration parsers throw for bad input. It names the
// file, the 1-based line, the column or field, what was expected and what was found, so that
// `fathom calibrate` can print it and exit non-zero. Bad input never crashes a parser.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fathom::calib {

// what() reads, on one line:
//   data/x.log:42: in-place busbw (column 12): expected a number, found "39O.1"
// The line is left out when it is 0 (a file that cannot be read, a value the caller supplied),
// the field when it is empty.
class ParseError : public std::runtime_error {
 public:
  // `found` is printed as given: a piece of the input quoted by quote(), or a description such
  // as "an empty file" or "none".
  ParseError(std::string file, int line, std::string field, std::string expected, std::string found);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string expected_;
  std::string found_;
};

// `text` in double quotes with control bytes escaped (\r, \t, \x01) and long text cut short
// with "...", so that a message stays on one line whatever the input holds.
std::string quote(std::string_view text);

}  // namespace fathom::calib
