// A plan's journal (`fathom plan --journal FILE`, docs/plan.md#resume): every evaluated
// candidate, appended batch by batch and flushed, so that a run killed part-way continues with
// --resume from where it stopped and ends with the same output, to the byte, as a run that
// was never stopped. Each line holds one candidate's figures exactly (doubles in hexadecimal);
// the first line names the plan it belongs to (a hash of the scenario text, the overrides and
// the candidates), so that a journal of another plan is refused rather than mixed in.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/planner.hpp"

namespace fathom::plan {

// What a journal line keeps of a candidate: everything but its values (the plan gives them).
std::string journal_line(const Evaluated& e);
// The candidate of a complete line, or nullopt for a line that is not one (a line cut short by
// a kill).
std::optional<Evaluated> parse_journal_line(std::string_view line);

// The identity of a plan: its scenario's text, the command's overrides and the candidates.
std::uint64_t plan_identity(std::string_view text, const std::vector<std::string>& overrides,
                            const std::vector<std::vector<std::string>>& candidates);

class Journal {
 public:
  // Opens `path`: with `resume`, reads the candidates a journal there holds (a missing file
  // holds none; one of another plan, or a line damaged before its last, is a
  // std::runtime_error naming the file and line), then appends; without, starts it afresh.
  Journal(const std::string& path, std::uint64_t identity, bool resume);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // The candidates read back by --resume, by index.
  const std::map<std::size_t, Evaluated>& done() const { return done_; }
  // Appends the candidates and flushes them to the file (they survive a kill of the process).
  void append(const std::vector<const Evaluated*>& evaluated);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::map<std::size_t, Evaluated> done_;
};

}  // namespace fathom::plan
