#include "calibrate/parsers/text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "sim/input/text_file.hpp"

namespace fathom::calib::text {

std::string read_file(const std::filesystem::path& path) {
  try {
    return sim::read_text_file(path, sim::kMaxTableBytes);
  } catch (const sim::InputFileError& e) {
    throw ParseError(path.string(), 0, "", e.expected(), e.found());
  }
}

std::vector<Line> split_lines(std::string_view text) {
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<Line> lines;
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, ++number});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split_ws(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::int64_t> to_int64(std::string_view token) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

std::optional<double> to_double(std::string_view token) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty()) return std::nullopt;
  // from_chars reads "inf", "nan" and hexadecimal forms too; only decimal digits, a point, an
  // exponent and signs are numbers here.
  for (const char c : token) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E') {
      return std::nullopt;
    }
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> to_byte_size(std::string_view token) {
  std::size_t digits = 0;
  while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits]))) ++digits;
  if (digits == 0) return std::nullopt;
  const auto number = to_int64(token.substr(0, digits));
  if (!number) return std::nullopt;
  const std::string suffix = lower(token.substr(digits));
  int shift = 0;
  std::string_view rest = suffix;
  if (!rest.empty() && rest != "b") {
    switch (rest.front()) {
      case 'k':
        shift = 10;
        break;
      case 'm':
        shift = 20;
        break;
      case 'g':
        shift = 30;
        break;
      case 't':
        shift = 40;
        break;
      case 'p':
        shift = 50;
        break;
      default:
        return std::nullopt;
    }
    rest.remove_prefix(1);
    if (!rest.empty() && rest != "b" && rest != "ib") return std::nullopt;
  }
  if (*number > (std::numeric_limits<std::int64_t>::max() >> shift)) return std::nullopt;
  return *number << shift;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

void Where::fail(const std::string& field, const std::string& expected, const std::string& found) const {
  throw ParseError(file, line, field, expected, found);
}

std::int64_t Where::integer(std::string_view token, const std::string& field, std::int64_t min) const {
  const auto value = to_int64(token);
  const std::string expected = min == 0   ? "a whole number >= 0"
                               : min == 1 ? "a whole number >= 1"
                                          : "a whole number >= " + std::to_string(min);
  if (!value || *value < min) fail(field, expected, quote(token));
  return *value;
}

double Where::number(std::string_view token, const std::string& field, double min) const {
  const auto value = to_double(token);
  if (!value || *value < min) fail(field, min == 0 ? "a number >= 0" : "a number", quote(token));
  return *value;
}

std::string Where::word(std::string_view token, const std::string& field) const {
  if (trim(token).empty()) fail(field, "a non-empty value", quote(token));
  return std::string(token);
}

namespace {

// The cells of one CSV line; nullopt for an unterminated quote.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string cell;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        cell += line[i++];
      }
      if (!closed) return std::nullopt;
      while (i < line.size() && line[i] != ',') cell += line[i++];  // text after the quote, kept
    } else {
      while (i < line.size() && line[i] != ',') cell += line[i++];
    }
    cells.emplace_back(trim(cell));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return cells;
}

}  // namespace

Csv read_csv(std::string_view text, const std::string& file) {
  Csv csv;
  bool have_header = false;
  for (const Line& line : split_lines(text)) {
    if (is_blank(line.text)) continue;
    auto cells = split_csv_line(line.text);
    if (!cells) {
      throw ParseError(file, line.number, "", "a closing double quote on the same line", quote(line.text));
    }
    if (!have_header) {
      csv.header = std::move(*cells);
      csv.header_line = line.number;
      have_header = true;
    } else {
      csv.rows.push_back({std::move(*cells), line.number});
    }
  }
  if (!have_header) throw ParseError(file, 1, "header", "a CSV header line", "an empty file");
  return csv;
}

std::string header_text(const Csv& csv) { return join(csv.header, ","); }

void expect_header(const Csv& csv, const std::string& file, const std::vector<std::string>& expected,
                   const std::vector<std::string>& accepted) {
  if (csv.header == expected) return;
  std::string list;
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    if (i > 0) list += i + 1 == accepted.size() ? " or " : ", ";
    list += '"' + accepted[i] + '"';
  }
  throw ParseError(file, csv.header_line, "header", "one of the accepted headers " + list, quote(header_text(csv)));
}

void expect_cells(const CsvRow& row, const std::string& file, std::size_t count, const std::string& header) {
  if (row.cells.size() == count) return;
  throw ParseError(file, row.line, "row",
                   std::to_string(count) + " comma-separated cells as in the header \"" + header + "\"",
                   std::to_string(row.cells.size()) + " cells: " + quote(join(row.cells, ",")));
}

void expect_rows(const Csv& csv, const std::string& file, const std::string& what) {
  if (!csv.rows.empty()) return;
  throw ParseError(file, csv.header_line + 1, "rows", "at least one " + what + " row after the header", "none");
}

}  // namespace fathom::calib::text
