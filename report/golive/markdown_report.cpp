// The go-live report as Markdown: the criteria table, each row's note, and the pilot beside
// this cluster. The HTML page (html_report.cpp) adds the plots.
#include <string>

#include "report/golive/golive_writers.hpp"

namespace fathom::report {

namespace {

// A table cell: a pipe would end it.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out.empty() ? "—" : out;
}

}  // namespace

void write_golive_markdown(std::ostream& out, const GoLiveDocument& g) {
  int counts[5] = {};
  for (const Criterion& c : g.criteria) ++counts[static_cast<int>(c.verdict)];
  out << "# Go-live report: " << g.file << "\n\n";
  out << "- cluster: " << g.cluster << "\n";
  out << "- workload: " << g.workload << "\n";
  out << "- verdict: **" << (g.all_pass() ? "PASS" : "FAIL") << "**: " << counts[0] << " pass, " << counts[1]
      << " fail, " << counts[2] << " reported, " << counts[3] << " not evaluated, " << counts[4]
      << " not modelled yet\n\n";
  out << "## Acceptance criteria\n\n";
  out << "| criterion | predicted | target | verdict | what to change |\n|---|---|---|---|---|\n";
  for (const Criterion& c : g.criteria) {
    out << "| " << cell(c.name) << " | " << cell(c.predicted) << " | " << cell(c.target) << " | "
        << (c.verdict == Verdict::kFail ? "**FAIL**" : std::string(verdict_text(c.verdict))) << " | " << cell(c.remedy)
        << " |\n";
  }
  out << "\n## How each figure was reckoned\n\n";
  for (const Criterion& c : g.criteria) {
    if (!c.note.empty()) out << "- **" << c.name << "**: " << c.note << "\n";
  }
  out << "\n## Pilot then production\n\n";
  if (!g.pilot) out << "No pilot named (report.pilot): this cluster's figures alone.\n\n";
  out << "| figure | pilot | this cluster |\n|---|---|---|\n";
  for (const SideBySideRow& r : g.side_by_side) {
    out << "| " << r.figure << " | " << cell(r.pilot) << " | " << cell(r.cluster) << " |\n";
  }
}

}  // namespace fathom::report
