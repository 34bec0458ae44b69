#include "scenarios/azure_llm_reader.hpp"

#include <charconv>
#include <cstdint>

#include "scenarios/csv_table.hpp"
#include "sim/input/text_file.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kColumns = "TIMESTAMP, ContextTokens and GeneratedTokens";
constexpr std::string_view kTimestamp = "a time such as 2023-11-16 18:15:46.6805900 (up to 9 decimals)";

// Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian; Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" as ns since 1970; -1 when it is not one.
std::int64_t parse_timestamp(std::string_view t) {
  const auto whole = [&](std::size_t at, std::size_t len, int& out) {
    if (at + len > t.size()) return false;
    const char* b = t.data() + at;
    const auto [p, ec] = std::from_chars(b, b + len, out);
    return ec == std::errc() && p == b + len;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' || t[16] != ':') return -1;
  if (!whole(0, 4, y) || !whole(5, 2, mo) || !whole(8, 2, d) || !whole(11, 2, h) || !whole(14, 2, mi) ||
      !whole(17, 2, s)) {
    return -1;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return -1;
  std::int64_t fraction_ns = 0;
  if (t.size() > 19) {
    if (t[19] != '.' || t.size() == 20 || t.size() > 29) return -1;
    std::int64_t scale = 100'000'000;
    for (std::size_t i = 20; i < t.size(); ++i, scale /= 10) {
      if (t[i] < '0' || t[i] > '9') return -1;
      fraction_ns += (t[i] - '0') * scale;
    }
  }
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60'000'000'000LL + s * 1'000'000'000LL + fraction_ns;
}

}  // namespace

AzureLlmTrace parse_azure_llm(const std::string& file, std::string_view text) {
  CsvTable table(file, text);
  const std::size_t time_col = table.column("TIMESTAMP", kColumns);
  const std::size_t context_col = table.column("ContextTokens", kColumns);
  const std::size_t generated_col = table.column("GeneratedTokens", kColumns);
  AzureLlmTrace trace;
  std::int64_t previous = 0;
  while (table.next()) {
    const std::string_view stamp = table.value(time_col);
    const std::int64_t ns = parse_timestamp(stamp);
    if (ns < 0) table.fail(time_col, std::string(kTimestamp), "\"" + std::string(stamp) + "\"");
    if (trace.requests.empty()) {
      trace.first = sim::SimTime::from_ns(ns);
    } else if (ns < previous) {
      table.fail(time_col, "a time no earlier than the row above's (rows in time order)",
                 "\"" + std::string(stamp) + "\"");
    }
    previous = ns;
    infer::Request r;
    r.arrival = sim::SimTime::from_ns(ns - trace.first.ns());
    r.prompt = static_cast<std::int32_t>(table.whole(context_col, 1, INT32_MAX));
    r.output = static_cast<std::int32_t>(table.whole(generated_col, 1, INT32_MAX));
    trace.requests.push_back(r);
    trace.lines.push_back(table.line());
  }
  return trace;
}

AzureLlmTrace read_azure_llm(const std::string& path, const Location& named_at, const std::string& key) {
  std::string text;
  try {
    text = sim::read_text_file_or_gzip(path, sim::kMaxTableBytes);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, key, "an Azure LLM inference trace, plain or gzip (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
  return parse_azure_llm(path, sim::uniform_line_endings(std::move(text)));
}

}  // namespace fathom::scenario
