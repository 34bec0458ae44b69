#include "scenarios/swf_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "sim/input/text_file.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kFieldNames[kSwfFields] = {"job number",
                                                      "submit time",
                                                      "wait time",
                                                      "run time",
                                                      "allocated processors",
                                                      "average CPU time",
                                                      "used memory",
                                                      "requested processors",
                                                      "requested time",
                                                      "requested memory",
                                                      "status",
                                                      "user id",
                                                      "group id",
                                                      "executable number",
                                                      "queue number",
                                                      "partition number",
                                                      "preceding job number",
                                                      "think time"};

// Fields in seconds may be fractional (SWF 2.2); every other field counts something.
bool is_time(SwfField f) {
  return f == kSwfSubmit || f == kSwfWait || f == kSwfRun || f == kSwfAverageCpu || f == kSwfRequestedTime ||
         f == kSwfThinkTime;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// A key of `; Key: value`: a letter, then letters and digits, then a colon and a blank (or the
// end), no more than two blanks after the `;`. A line indented further, or a URL, continues the
// value above it.
std::optional<std::size_t> key_length(std::string_view after_semicolon) {
  std::size_t lead = 0;
  while (lead < after_semicolon.size() && is_blank(after_semicolon[lead])) ++lead;
  if (lead > 2) return std::nullopt;
  const std::string_view comment = after_semicolon.substr(lead);
  if (comment.empty() || !std::isalpha(static_cast<unsigned char>(comment[0]))) return std::nullopt;
  std::size_t n = 1;
  while (n < comment.size() && std::isalnum(static_cast<unsigned char>(comment[n]))) ++n;
  if (n < comment.size() && comment[n] == ':' && (n + 1 == comment.size() || is_blank(comment[n + 1]))) return n;
  return std::nullopt;
}

// The numeric header keys SWF 2.2 defines, and where each is kept.
std::optional<std::int64_t>* numeric_key(SwfHeader& h, std::string_view key) {
  if (key == "MaxJobs") return &h.max_jobs;
  if (key == "MaxRecords") return &h.max_records;
  if (key == "MaxNodes") return &h.max_nodes;
  if (key == "MaxProcs") return &h.max_procs;
  if (key == "MaxRuntime") return &h.max_runtime_s;
  if (key == "MaxMemory") return &h.max_memory_kb;
  if (key == "UnixStartTime") return &h.unix_start_time;
  if (key == "TimeZone") return &h.time_zone;
  return nullptr;
}

jobs::JobStatus status_of(double code) {
  if (code == 1) return jobs::JobStatus::kCompleted;
  if (code == 0) return jobs::JobStatus::kFailed;
  if (code == 5) return jobs::JobStatus::kCancelled;
  if (code >= 2 && code <= 4) return jobs::JobStatus::kPartial;
  return jobs::JobStatus::kUnknown;
}

class Parser {
 public:
  Parser(const std::string& file, std::string_view text) : file_(file), text_(text) {}

  SwfTrace run() {
    if (trim(text_).empty()) throw ScenarioError({file_, 1, 1}, "records", "an SWF job log", "an empty file");
    std::size_t at = 0;
    while (at < text_.size()) {
      const std::size_t end = std::min(text_.find('\n', at), text_.size());
      ++line_;
      read_line(text_.substr(at, end - at));
      at = end + 1;
    }
    if (out_.records.empty()) {
      throw ScenarioError({file_, line_, 1}, "records", "at least one job record", "none");
    }
    check_header();
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(int column, const std::string& key, const std::string& expected,
                         const std::string& found) const {
    throw ScenarioError({file_, line_, column}, key, expected, found);
  }

  void read_line(std::string_view line) {
    current_ = line;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) return;  // a blank line
    if (line[first] == ';') {
      read_comment(line, first + 1);
    } else {
      read_record(line);
    }
  }

  void read_comment(std::string_view line, std::size_t body) {
    // Comments after the first record are notes, not header.
    if (!out_.records.empty()) return;
    const std::string_view comment = trim(line.substr(body));
    if (comment.empty()) {
      continuing_ = false;  // a bare `;` ends a value
      return;
    }
    if (const auto n = key_length(line.substr(body))) {
      SwfHeaderEntry& e = out_.header.entries.emplace_back();
      e.key = std::string(comment.substr(0, *n));
      e.value = std::string(trim(comment.substr(*n + 1)));
      e.line = line_;
      continuing_ = true;
      if (e.key == "Version") out_.header.version = e.value;
      if (auto* slot = numeric_key(out_.header, e.key)) {
        std::size_t value_at = static_cast<std::size_t>(comment.data() - line.data()) + *n + 1;
        while (value_at < line.size() && is_blank(line[value_at])) ++value_at;
        const int column = static_cast<int>(value_at) + 1;
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(e.value.data(), e.value.data() + e.value.size(), v);
        if (ec != std::errc() || p != e.value.data() + e.value.size()) {
          fail(column, e.key, "a whole number", quote_found(e.value));
        }
        *slot = v;
      }
    } else if (continuing_ && !out_.header.entries.empty()) {
      SwfHeaderEntry& e = out_.header.entries.back();
      e.value += '\n';
      e.value += comment;
    }
  }

  void read_record(std::string_view line) {
    SwfRecord r;
    r.line = line_;
    std::array<int, kSwfFields> column{};
    std::size_t at = 0;
    int n = 0;
    while (true) {
      while (at < line.size() && is_blank(line[at])) ++at;
      if (at >= line.size()) break;
      std::size_t end = at;
      while (end < line.size() && !is_blank(line[end])) ++end;
      if (n < kSwfFields) {
        const auto f = static_cast<SwfField>(n);
        column[f] = static_cast<int>(at) + 1;
        r.field[f] = number(line.substr(at, end - at), f, column[f]);
      }
      ++n;
      at = end;
    }
    if (n != kSwfFields) {
      fail(1, "record", "18 whitespace-separated fields", std::to_string(n) + " in " + quote_found(line));
    }
    const auto at_field = [&](SwfField f) { return Location{file_, line_, column[f]}; };
    // Submit times never go back: the log is in submit order, and equal times keep file order.
    const double submit = r[kSwfSubmit];
    if (submit >= 0) {
      if (submit < last_submit_) {
        fail(column[kSwfSubmit], swf_field_name(kSwfSubmit),
             "a time at or after the previous record's (line " + std::to_string(last_submit_line_) + ")",
             quote_found(std::string(token(line, column[kSwfSubmit]))));
      }
      last_submit_ = submit;
      last_submit_line_ = line_;
    }
    const double job = r[kSwfJob];
    if (job < 1) {
      fail(column[kSwfJob], swf_field_name(kSwfJob), "a job number of 1 or more",
           quote_found(std::string(token(line, column[kSwfJob]))));
    }
    if (const auto [it, fresh] = job_line_.try_emplace(static_cast<std::int64_t>(job), line_); !fresh) {
      fail(column[kSwfJob], swf_field_name(kSwfJob),
           "a job number not used by an earlier record (line " + std::to_string(it->second) + ")",
           quote_found(std::string(token(line, column[kSwfJob]))));
    }
    out_.records.push_back(r);
    const double requested = r[kSwfRequestedProcessors] > 0 ? r[kSwfRequestedProcessors] : r[kSwfAllocatedProcessors];
    if (requested <= 0) {
      add_tally(out_.skipped, "size unknown (fields 8 and 5)", at_field(kSwfAllocatedProcessors));
      return;
    }
    if (submit < 0) {
      add_tally(out_.skipped, "submit time unknown (field 2)", at_field(kSwfSubmit));
      return;
    }
    if (r[kSwfRun] < 0) {
      add_tally(out_.skipped, "run time unknown (field 4)", at_field(kSwfRun));
      return;
    }
    if (requested > 2147483647.0) {
      fail(column[r[kSwfRequestedProcessors] > 0 ? kSwfRequestedProcessors : kSwfAllocatedProcessors],
           swf_field_name(r[kSwfRequestedProcessors] > 0 ? kSwfRequestedProcessors : kSwfAllocatedProcessors),
           "at most 2147483647 processors", quote_found(std::to_string(static_cast<std::int64_t>(requested))));
    }
    jobs::TraceJob j;
    j.id = static_cast<std::int64_t>(job);
    j.user = id_or_unknown(r[kSwfUser]);
    j.group = id_or_unknown(r[kSwfGroup]);
    j.submit = time_of(r, kSwfSubmit, column);
    j.run = time_of(r, kSwfRun, column);
    if (r[kSwfRequestedTime] > 0) j.estimate = time_of(r, kSwfRequestedTime, column);
    if (r[kSwfWait] >= 0) j.logged_wait = time_of(r, kSwfWait, column);
    j.gpus = static_cast<std::int32_t>(requested);
    j.status = status_of(r[kSwfStatus]);
    j.line = line_;
    out_.jobs.push_back(j);
  }

  static std::string_view token(std::string_view line, int column) {
    const auto begin = static_cast<std::size_t>(column - 1);
    std::size_t end = begin;
    while (end < line.size() && !is_blank(line[end])) ++end;
    return line.substr(begin, end - begin);
  }

  static std::int32_t id_or_unknown(double v) {
    return v >= 0 && v <= 2147483647.0 ? static_cast<std::int32_t>(v) : -1;
  }

  sim::SimTime time_of(const SwfRecord& r, SwfField f, const std::array<int, kSwfFields>& column) const {
    try {
      return sim::SimTime::from_seconds(r[f]);
    } catch (const sim::TimeOutOfRange&) {
      fail(column[f], swf_field_name(f), "a time within 292 years", quote_found(token(current_, column[f])));
    }
  }

  // A field's value: -1 (unknown) or a non-negative number, whole unless it is a time.
  double number(std::string_view text, SwfField f, int column) const {
    const std::string key = swf_field_name(f);
    std::int64_t whole = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (ec == std::errc() && p == text.data() + text.size()) {
      if (whole < -1) fail(column, key, "-1 (unknown) or a non-negative number", quote_found(text));
      if (whole > (std::int64_t{1} << 53)) fail(column, key, "a number below 2^53", quote_found(text));
      return static_cast<double>(whole);
    }
    if (!is_time(f)) fail(column, key, "a whole number (-1: unknown)", quote_found(text));
    // A time may be fractional: digits, a point, digits; no sign but -1's, no exponent.
    double v = 0;
    const auto [q, ec2] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::fixed);
    if (ec2 != std::errc() || q != text.data() + text.size() || !std::isfinite(v) || (v < 0 && v != -1)) {
      fail(column, key, "a number of seconds (-1: unknown)", quote_found(text));
    }
    return v;
  }

  // The records against the header's promises, counted.
  void check_header() {
    const SwfHeader& h = out_.header;
    const auto header_line = [&](std::string_view key) {
      const SwfHeaderEntry* e = h.find(key);
      return Location{file_, e != nullptr ? e->line : 0, 1};
    };
    if (h.max_records && static_cast<std::int64_t>(out_.records.size()) != *h.max_records) {
      add_tally(out_.disagreements,
                "MaxRecords is " + std::to_string(*h.max_records) + ", the file has " +
                    std::to_string(out_.records.size()) + " records",
                header_line("MaxRecords"));
    }
    for (const SwfRecord& r : out_.records) {
      const Location at{file_, r.line, 1};
      if (h.max_jobs && r[kSwfJob] > static_cast<double>(*h.max_jobs)) {
        add_tally(out_.disagreements, "job number above MaxJobs", at);
      }
      if (const auto procs = h.machine_processors()) {
        const double p = std::max(r[kSwfRequestedProcessors], r[kSwfAllocatedProcessors]);
        if (p > static_cast<double>(*procs)) {
          add_tally(out_.disagreements, std::string("processors above ") + (h.max_procs ? "MaxProcs" : "MaxNodes"), at);
        }
      }
      if (h.max_runtime_s && r[kSwfRun] > static_cast<double>(*h.max_runtime_s)) {
        add_tally(out_.disagreements, "run time above MaxRuntime", at);
      }
    }
  }

  const std::string& file_;
  std::string_view text_;
  std::string_view current_;  // the line being read
  int line_ = 0;
  bool continuing_ = false;  // a `;` line without a key continues the last key's value
  double last_submit_ = -1;
  int last_submit_line_ = 0;
  std::unordered_map<std::int64_t, int> job_line_;
  SwfTrace out_;
};

}  // namespace

std::string swf_field_name(SwfField field) {
  return "field " + std::to_string(static_cast<int>(field) + 1) + " (" + std::string(kFieldNames[field]) + ")";
}

const SwfHeaderEntry* SwfHeader::find(std::string_view key) const {
  for (const SwfHeaderEntry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

int SwfTrace::skipped_count() const {
  int n = 0;
  for (const TraceTally& t : skipped) n += t.count;
  return n;
}

void add_tally(std::vector<TraceTally>& tallies, const std::string& reason, const Location& where) {
  for (TraceTally& t : tallies) {
    if (t.reason == reason) {
      ++t.count;
      return;
    }
  }
  tallies.push_back({reason, 1, where});
}

SwfTrace parse_swf(const std::string& file, std::string_view text) { return Parser(file, text).run(); }

SwfTrace read_swf(const std::string& path, const Location& named_at, const std::string& key) {
  std::string text;
  try {
    text = sim::read_text_file_or_gzip(path, sim::kMaxTableBytes);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, key, "an SWF job log, plain or gzip (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
  return parse_swf(path, text);
}

}  // namespace fathom::scenario
