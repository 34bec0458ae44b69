#include "scenarios/job_csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "sim/input/tar_archive.hpp"
#include "sim/input/text_file.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

namespace {

// One row's cells and where each starts (1-based column).
struct Cells {
  std::vector<std::string_view> text;
  std::vector<int> column;
};

void split(std::string_view line, Cells& out) {
  out.text.clear();
  out.column.clear();
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    out.text.push_back(line.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
    out.column.push_back(static_cast<int>(begin) + 1);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
}

class CsvParser {
 public:
  CsvParser(const std::string& file, std::string_view text, const JobCsvColumns& columns)
      : file_(file), text_(text), columns_(columns) {}

  JobCsvTrace run() {
    if (text_.rfind("\xEF\xBB\xBF", 0) == 0) text_.remove_prefix(3);  // a UTF-8 byte order mark
    std::size_t at = 0;
    Cells cells;
    while (at < text_.size() || line_ == 0) {
      const std::size_t end = std::min(text_.find('\n', at), text_.size());
      ++line_;
      const std::string_view line = text_.substr(std::min(at, text_.size()), end - std::min(at, text_.size()));
      at = end + 1;
      if (line_ == 1) {
        header(line);
        continue;
      }
      if (line.empty()) continue;
      split(line, cells);
      row(line, cells);
    }
    if (out_.jobs.empty()) throw ScenarioError({file_, line_, 1}, "row", "at least one job after the header", "none");
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(int column, const std::string& key, const std::string& expected,
                         const std::string& found) const {
    throw ScenarioError({file_, line_, column}, key, expected, found);
  }

  std::string header_text() const {
    std::string names;
    for (const std::string* c : wanted()) {
      if (c->empty()) continue;
      names += (names.empty() ? "" : ",") + *c;
    }
    return names;
  }

  std::vector<const std::string*> wanted() const {
    return {&columns_.id,       &columns_.submit, &columns_.run,  &columns_.gpus,
            &columns_.estimate, &columns_.user,   &columns_.group};
  }

  void header(std::string_view line) {
    if (line.empty()) fail(1, "header", "a header naming the columns " + header_text(), "an empty line");
    Cells cells;
    split(line, cells);
    width_ = cells.text.size();
    for (std::size_t k = 0; k < wanted().size(); ++k) {
      const std::string& name = *wanted()[k];
      index_[k] = -1;
      if (name.empty()) continue;
      const auto it = std::find(cells.text.begin(), cells.text.end(), name);
      if (it == cells.text.end()) {
        fail(1, "header", "a column named " + quote_found(name) + " (the columns " + header_text() + ")",
             quote_found(line));
      }
      index_[k] = static_cast<int>(it - cells.text.begin());
    }
  }

  // Column k of `wanted()` in this row: its text and place, or none when the CSV lacks it.
  std::optional<std::pair<std::string_view, int>> cell(const Cells& cells, std::size_t k) const {
    if (index_[k] < 0) return std::nullopt;
    const auto i = static_cast<std::size_t>(index_[k]);
    if (cells.text[i].empty()) fail(cells.column[i], *wanted()[k], "a value", "an empty cell");
    return std::make_pair(cells.text[i], cells.column[i]);
  }

  double seconds(std::pair<std::string_view, int> c, const std::string& key) const {
    double v = 0;
    const auto [p, ec] = std::from_chars(c.first.data(), c.first.data() + c.first.size(), v, std::chars_format::fixed);
    if (ec != std::errc() || p != c.first.data() + c.first.size() || !(v >= 0) || !std::isfinite(v)) {
      fail(c.second, key, "a non-negative number of seconds", quote_found(c.first));
    }
    if (v > 9.2e9) fail(c.second, key, "a time within 292 years", quote_found(c.first));
    return v;
  }

  std::int32_t named(std::string_view name, std::vector<std::string>& names,
                     std::unordered_map<std::string, std::int32_t>& numbers) {
    const auto [it, fresh] = numbers.try_emplace(std::string(name), static_cast<std::int32_t>(names.size()));
    if (fresh) names.emplace_back(name);
    return it->second;
  }

  void row(std::string_view line, const Cells& cells) {
    if (cells.text.size() != width_) {
      fail(1, "row", std::to_string(width_) + " comma-separated cells, as the header has",
           std::to_string(cells.text.size()) + " in " + quote_found(line));
    }
    jobs::TraceJob j;
    j.line = line_;
    j.id = static_cast<std::int64_t>(out_.jobs.size()) + 1;
    std::string id;
    if (const auto c = cell(cells, 0)) {
      id = std::string(c->first);
      if (const auto [it, fresh] = id_line_.try_emplace(id, line_); !fresh) {
        fail(c->second, columns_.id, "an id not used by an earlier row (line " + std::to_string(it->second) + ")",
             quote_found(c->first));
      }
    }
    const auto submit = *cell(cells, 1);
    const double submit_s = seconds(submit, columns_.submit);
    if (submit_s < last_submit_) {
      fail(submit.second, columns_.submit,
           "a time at or after the previous row's (line " + std::to_string(last_submit_line_) + ")",
           quote_found(submit.first));
    }
    last_submit_ = submit_s;
    last_submit_line_ = line_;
    j.submit = sim::SimTime::from_seconds(submit_s);
    j.run = sim::SimTime::from_seconds(seconds(*cell(cells, 2), columns_.run));
    const auto gpus = *cell(cells, 3);
    std::int32_t g = 0;
    const auto [p, ec] = std::from_chars(gpus.first.data(), gpus.first.data() + gpus.first.size(), g);
    if (ec != std::errc() || p != gpus.first.data() + gpus.first.size() || g < 0) {
      fail(gpus.second, columns_.gpus, "a whole number of GPUs", quote_found(gpus.first));
    }
    j.gpus = g;
    if (const auto c = cell(cells, 4)) j.estimate = sim::SimTime::from_seconds(seconds(*c, columns_.estimate));
    if (const auto c = cell(cells, 5)) j.user = named(c->first, out_.users, user_numbers_);
    if (const auto c = cell(cells, 6)) j.group = named(c->first, out_.groups, group_numbers_);
    j.status = jobs::JobStatus::kUnknown;
    out_.jobs.push_back(j);
    out_.ids.push_back(std::move(id));
  }

  const std::string& file_;
  std::string_view text_;
  const JobCsvColumns& columns_;
  int line_ = 0;
  std::size_t width_ = 0;
  int index_[7] = {-1, -1, -1, -1, -1, -1, -1};  // per wanted() field: its cell, -1 absent
  double last_submit_ = 0;
  int last_submit_line_ = 0;
  std::unordered_map<std::string, int> id_line_;
  std::unordered_map<std::string, std::int32_t> user_numbers_, group_numbers_;
  JobCsvTrace out_;
};

}  // namespace

JobCsvColumns itp_columns() { return {"job_id", "submission_time", "duration", "num_gpu", "", "", ""}; }

JobCsvTrace parse_job_csv(const std::string& file, std::string_view text, const JobCsvColumns& columns) {
  if (columns.submit.empty() || columns.run.empty() || columns.gpus.empty()) {
    throw std::invalid_argument("parse_job_csv: the submit, run and gpus columns must be named");
  }
  return CsvParser(file, text, columns).run();
}

JobCsvTrace read_job_csv(const std::string& path, const Location& named_at, const std::string& key,
                         const JobCsvColumns& columns) {
  std::string text;
  try {
    text = sim::read_text_file_or_gzip(path, sim::kMaxTableBytes);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, key, "a CSV file of jobs, plain or gzip (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
  return parse_job_csv(path, sim::uniform_line_endings(std::move(text)), columns);
}

ItpTrace read_itp_archive(const std::string& path, const Location& named_at, const std::string& key,
                          const std::string& member, const Location& member_at, const std::string& member_key) {
  std::string archive;
  std::vector<sim::TarMember> entries;
  try {
    archive = sim::read_text_file_or_gzip(path, sim::kMaxTableBytes);
    entries = sim::read_tar(archive);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, key, "the ITP traces' tar.gz (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
  std::vector<const sim::TarMember*> csvs;
  std::vector<std::string> names;
  for (const auto& e : entries) {
    if (e.name.size() > 4 && e.name.ends_with(".csv")) {
      csvs.push_back(&e);
      names.push_back(e.name);
    }
  }
  std::vector<const sim::TarMember*> chosen;
  if (member == "all") {
    chosen = csvs;
    std::sort(chosen.begin(), chosen.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  } else {
    const auto it = std::find_if(csvs.begin(), csvs.end(), [&](const auto* e) { return e->name == member; });
    if (it == csvs.end()) {
      std::vector<std::string> sorted = names;
      std::sort(sorted.begin(), sorted.end());
      std::string list = "all";
      for (const auto& n : sorted) list += ", " + n;
      throw ScenarioError(member_at, member_key, "one of " + list, quote_found(member), did_you_mean(member, sorted));
    }
    chosen.push_back(*it);
  }
  // Each member parsed on its own (errors name it as archive(member)), then merged.
  ItpTrace out;
  std::vector<JobCsvTrace> parts;
  for (const auto* m : chosen) {
    out.members.push_back(m->name);
    parts.push_back(
        parse_job_csv(path + "(" + m->name + ")", sim::uniform_line_endings(std::string(m->data)), itp_columns()));
  }
  struct Ref {
    std::size_t part, row;
  };
  std::vector<Ref> order;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (std::size_t r = 0; r < parts[p].jobs.size(); ++r) order.push_back({p, r});
  }
  // Parts are in name order and rows in file order, so a stable sort by submit time breaks
  // ties by member name, then row.
  std::stable_sort(order.begin(), order.end(), [&](const Ref& a, const Ref& b) {
    return parts[a.part].jobs[a.row].submit < parts[b.part].jobs[b.row].submit;
  });
  out.jobs.reserve(order.size());
  for (const Ref& r : order) {
    out.jobs.push_back(parts[r.part].jobs[r.row]);
    out.jobs.back().id = static_cast<std::int64_t>(out.jobs.size());
    out.ids.push_back(std::move(parts[r.part].ids[r.row]));
    out.member_of.push_back(static_cast<std::uint8_t>(r.part));
  }
  return out;
}

}  // namespace fathom::scenario
