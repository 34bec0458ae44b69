// nvbandwidth's text output. Each test starts with "Running <test>." and prints a titled matrix
// in GB/s (N/A on the diagonal), then, in versions since 2023, "SUM <test> <GB/s>". A test that
// prints a latency matrix (a title in ns) is not a bandwidth and is skipped; "Waived." tests are
// listed as waived. Other lines (versions, notes, coefficient of variation) are read or skipped.
#include <cctype>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/text.hpp"
#include "calibrate/parsers/transfer.hpp"

namespace fathom::calib {
namespace {

bool is_index(std::string_view t) {
  if (t.empty()) return false;
  for (const char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

class NvbandwidthParser {
 public:
  NvbandwidthParser(std::string_view text, const std::string& file) : text_(text) {
    result_.file = file;
    result_.source = TransferSource::nvbandwidth;
    result_.tool = "nvbandwidth";
  }

  TransferBandwidth parse() {
    int last_line = 1;
    for (const text::Line& line : text::split_lines(text_)) {
      last_line = line.number;
      read_line(text::trim(line.text), line.number);
    }
    finish_test();
    if (result_.tests.empty()) {
      throw ParseError(result_.file, last_line, "tests",
                       "nvbandwidth results (\"Running <test>.\" with a GB/s matrix, or \"SUM <test> <GB/s>\" lines)",
                       text::is_blank(text_) ? "an empty file" : "none");
    }
    return std::move(result_);
  }

 private:
  void read_line(std::string_view t, int line) {
    const text::Where where{result_.file, line};
    const std::vector<std::string_view> tokens = text::split_ws(t);
    if (tokens.empty()) {
      in_matrix_ = false;
      return;
    }
    if (in_matrix_ && is_index(tokens.front())) {
      read_matrix_line(tokens, t, where);
      return;
    }
    in_matrix_ = false;
    if (tokens.front() == "Running" && tokens.size() == 2 && text::ends_with(tokens[1], ".")) {
      finish_test();
      test_ = std::string(tokens[1].substr(0, tokens[1].size() - 1));
      test_line_ = line;
      return;
    }
    if (tokens.front() == "SUM") {
      read_sum(tokens, t, where);
      return;
    }
    if (text::starts_with(t, "nvbandwidth Version:")) {
      result_.version = std::string(text::trim(t.substr(20)));
      return;
    }
    if (tokens.size() >= 3 && tokens[0] == "Device" && text::ends_with(tokens[1], ":") &&
        is_index(tokens[1].substr(0, tokens[1].size() - 1))) {
      result_.devices.emplace_back(text::trim(t.substr(t.find(':') + 1)));
      return;
    }
    if (test_.empty()) return;
    if (text::lower(t) == "waived." || text::contains(text::lower(t), "waived")) {
      result_.waived.push_back(test_);
      test_.clear();
      return;
    }
    const std::size_t paren = t.rfind('(');
    if (title_.empty() && paren != std::string_view::npos && text::ends_with(t, ")")) {
      title_ = std::string(t);
      title_line_ = line;
      latency_ = t.substr(paren) != "(GB/s)";
      in_matrix_ = true;
      columns_ = 0;
    }
  }

  void read_matrix_line(const std::vector<std::string_view>& tokens, std::string_view t, const text::Where& where) {
    if (columns_ == 0) {
      // The column header: 0 1 2 ...
      for (const std::string_view c : tokens) {
        if (!is_index(c)) where.fail("matrix header", "column numbers 0 1 2 ...", quote(t));
      }
      columns_ = tokens.size();
      columns_line_ = where.line;
      return;
    }
    if (tokens.size() != columns_ + 1) {
      where.fail("matrix row",
                 "a row number and " + std::to_string(columns_) + " values as the column header at line " +
                     std::to_string(columns_line_) + " has",
                 std::to_string(tokens.size() - 1) + " values: " + quote(t));
    }
    std::vector<std::optional<double>> row;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      if (tokens[i] == "N/A") {
        row.push_back(std::nullopt);
      } else {
        row.push_back(
            where.number(tokens[i], "matrix row " + std::string(tokens[0]) + " column " + std::to_string(i - 1), 0) *
            1e9);
      }
    }
    matrix_.push_back(std::move(row));
  }

  void read_sum(const std::vector<std::string_view>& tokens, std::string_view t, const text::Where& where) {
    if (tokens.size() != 3) where.fail("SUM line", "\"SUM <test> <GB/s>\"", quote(t));
    const std::string test(tokens[1]);
    const double value = where.number(tokens[2], "SUM " + test, 0);
    if (test == test_ && latency_) {
      test_.clear();
      return;
    }
    TransferPoint p;
    p.test = test;
    p.bandwidth_bytes_per_s = value * 1e9;
    p.basis = TransferBasis::printed_sum;
    p.line = where.line;
    if (test == test_) {
      p.matrix_title = title_;
      p.matrix_bytes_per_s = std::move(matrix_);
      test_.clear();
      reset_matrix();
    }
    result_.tests.push_back(std::move(p));
  }

  // A test that printed a bandwidth matrix but no SUM line: its figure is the matrix's sum.
  void finish_test() {
    if (!test_.empty() && !latency_ && !matrix_.empty()) {
      TransferPoint p;
      p.test = test_;
      p.basis = TransferBasis::matrix_sum;
      p.line = test_line_;
      for (const auto& row : matrix_) {
        for (const auto& cell : row) p.bandwidth_bytes_per_s += cell.value_or(0);
      }
      p.matrix_title = title_;
      p.matrix_bytes_per_s = std::move(matrix_);
      result_.tests.push_back(std::move(p));
    }
    test_.clear();
    reset_matrix();
  }

  void reset_matrix() {
    matrix_.clear();
    title_.clear();
    title_line_ = 0;
    latency_ = false;
    in_matrix_ = false;
    columns_ = 0;
  }

  std::string_view text_;
  TransferBandwidth result_;
  std::string test_;  // the test being read; empty between tests
  int test_line_ = 0;
  std::string title_;
  int title_line_ = 0;
  bool latency_ = false;
  bool in_matrix_ = false;
  std::size_t columns_ = 0;
  int columns_line_ = 0;
  std::vector<std::vector<std::optional<double>>> matrix_;
};

}  // namespace

TransferBandwidth parse_nvbandwidth_text(std::string_view text, const std::string& file) {
  return NvbandwidthParser(text, file).parse();
}

TransferBandwidth parse_nvbandwidth(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_nvbandwidth_text(content, file.string());
}

}  // namespace fathom::calib
