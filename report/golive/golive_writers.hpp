// The go-live report's renderers: Markdown (also what `fathom report` prints without -o) and a
// self-contained HTML page with inline CSS and inline SVG plots (svg_chart.hpp), no script and
// no external URL. Both render a GoLiveDocument, what any cluster kind's report shows: a GPU
// cluster's (golive_report.hpp) and a wafer-scale one's (wafer_golive.hpp) turn into one.
// docs/go-live.md describes the page.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/golive/golive_report.hpp"
#include "report/golive/svg_chart.hpp"

namespace fathom::report {

// The figures of the pilot beside this cluster's, row by row (the pilot's column empty without
// one), both renderers' "pilot then production" table.
struct SideBySideRow {
  std::string figure;
  std::string pilot;
  std::string cluster;
};

struct GoLiveDocument {
  std::string file;      // the scenario
  std::string cluster;   // one line: what the cluster is
  std::string workload;  // one line: the model and how it is trained
  std::vector<Criterion> criteria;
  // "Where the step goes" on the HTML page: the step's breakdown and memory against capacity.
  std::vector<StackedChart> charts;
  std::string no_step;  // said before the charts when there is no step to draw ("" when there is)
  bool pilot = false;   // a pilot was named: the side-by-side table has its column
  std::vector<SideBySideRow> side_by_side;
  bool all_pass() const;  // no criterion failed
};

// A GPU cluster's report as the page shows it.
GoLiveDocument golive_document(const GoLiveReport& report);
std::vector<SideBySideRow> side_by_side(const GoLiveReport& report);

void write_golive_markdown(std::ostream& out, const GoLiveDocument& document);
void write_golive_html(std::ostream& out, const GoLiveDocument& document);
inline void write_golive_markdown(std::ostream& out, const GoLiveReport& report) {
  write_golive_markdown(out, golive_document(report));
}
inline void write_golive_html(std::ostream& out, const GoLiveReport& report) {
  write_golive_html(out, golive_document(report));
}

// One line: "N nodes x G accelerator; fabric" and one for the model and strategy.
std::string cluster_line(const GoLiveRun& run);
std::string workload_line(const GoLiveRun& run);

}  // namespace fathom::report
