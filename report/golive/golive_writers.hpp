// The go-live report's renderers: Markdown (also what `fathom report` prints without -o) and a
// self-contained HTML page with inline CSS and inline SVG plots (svg_chart.hpp), no script and
// no external URL. Both show the same rows; docs/go-live.md describes them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/golive/golive_report.hpp"

namespace fathom::report {

void write_golive_markdown(std::ostream& out, const GoLiveReport& report);
void write_golive_html(std::ostream& out, const GoLiveReport& report);

// The figures of the pilot beside this cluster's, row by row (the pilot's column empty without
// one), both renderers' "pilot then production" table.
struct SideBySideRow {
  std::string figure;
  std::string pilot;
  std::string cluster;
};
std::vector<SideBySideRow> side_by_side(const GoLiveReport& report);

// One line: "N nodes x G accelerator; fabric" and one for the model and strategy.
std::string cluster_line(const GoLiveRun& run);
std::string workload_line(const GoLiveRun& run);

}  // namespace fathom::report
