#include "scenarios/csv_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace fathom::scenario {

CsvTable::CsvTable(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {
  if (text_.rfind("\xEF\xBB\xBF", 0) == 0) text_.remove_prefix(3);  // a UTF-8 byte order mark
  const std::size_t end = std::min(text_.find('\n'), text_.size());
  line_ = 1;
  const std::string_view first = text_.substr(0, end);
  at_ = end + 1;
  if (first.empty()) throw ScenarioError({file_, 1, 1}, "header", "a header naming the columns", "an empty line");
  split(first, header_, header_columns_);
}

void CsvTable::split(std::string_view line, std::vector<std::string_view>& cells, std::vector<int>& columns) const {
  cells.clear();
  columns.clear();
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    cells.push_back(line.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
    columns.push_back(static_cast<int>(begin) + 1);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
}

std::ptrdiff_t CsvTable::find(std::string_view name) const {
  const auto it = std::find(header_.begin(), header_.end(), name);
  return it == header_.end() ? -1 : it - header_.begin();
}

std::size_t CsvTable::column(std::string_view name, std::string_view all) const {
  const std::ptrdiff_t k = find(name);
  if (k < 0) {
    throw ScenarioError({file_, 1, 1}, "header",
                        "a column named " + quote_found(name) + " (the columns " + std::string(all) + ")",
                        quote_found(text_.substr(0, std::min(text_.find('\n'), text_.size()))));
  }
  return static_cast<std::size_t>(k);
}

bool CsvTable::next() {
  while (at_ < text_.size()) {
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    ++line_;
    row_ = text_.substr(at_, end - at_);
    at_ = end + 1;
    if (row_.empty()) continue;
    split(row_, cells_, columns_);
    if (cells_.size() != header_.size()) {
      throw ScenarioError({file_, line_, 1}, "row",
                          std::to_string(header_.size()) + " comma-separated cells, as the header has",
                          std::to_string(cells_.size()) + " in " + quote_found(row_));
    }
    return true;
  }
  return false;
}

void CsvTable::fail(std::size_t col, const std::string& expected, const std::string& found) const {
  throw ScenarioError({file_, line_, columns_[col]}, std::string(header_[col]), expected, found);
}

std::string_view CsvTable::value(std::size_t col) const {
  if (cells_[col].empty()) fail(col, "a value", "an empty cell");
  return cells_[col];
}

double CsvTable::non_negative(std::size_t col, std::string_view what) const {
  const std::string_view t = value(col);
  double v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || p != t.data() + t.size() || !(v >= 0) || !std::isfinite(v)) {
    fail(col, "a non-negative " + std::string(what), quote_found(t));
  }
  return v;
}

std::int64_t CsvTable::whole(std::size_t col, std::int64_t min, std::int64_t max) const {
  const std::string_view t = value(col);
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v < min || v > max) {
    fail(col, "a whole number from " + std::to_string(min) + " to " + std::to_string(max), quote_found(t));
  }
  return v;
}

}  // namespace fathom::scenario
