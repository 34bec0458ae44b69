// The go-live report as one self-contained HTML page: inline CSS, the criteria table, the
// plots as inline SVG (svg_chart.hpp) and the pilot beside this cluster. Nothing is fetched:
// the file opens offline and prints as it shows.
#include <algorithm>
#include <string>
#include <vector>

#include "report/golive/golive_writers.hpp"

namespace fathom::report {

namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 60em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
.verdict { font-weight: bold; white-space: nowrap; }
.pass { color: #1a7f37; } .fail { color: #cf222e; } .reported, .not-evaluated, .not-modelled { color: #666; }
.banner { padding: 0.6em 1em; border-radius: 4px; font-weight: bold; }
.banner.pass { background: #dafbe1; } .banner.fail { background: #ffebe9; }
.note { font-size: 0.9em; color: #444; }
svg.chart { display: block; margin: 1em 0; font-size: 12px; }
svg .title { font-size: 14px; font-weight: bold; fill: #222; }
svg .grid { stroke: #ddd; } svg .marker { stroke: #cf222e; stroke-width: 2; stroke-dasharray: 4 3; }
svg .marker-label { fill: #cf222e; } svg .tick, svg .axis, svg .label, svg .legend-label { fill: #333; }
)";

std::string css_class(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kReported:
      return "reported";
    case Verdict::kNotEvaluated:
      return "not-evaluated";
    case Verdict::kNotModelled:
      return "not-modelled";
  }
  return "not-evaluated";
}

std::string td(const std::string& text) { return "<td>" + escape_markup(text.empty() ? "—" : text) + "</td>"; }

// Each evaluated criterion's margin (predicted over target, 1 = on target), capped so that one
// far past its target does not squash the rest.
StackedChart criteria_chart(const GoLiveDocument& g) {
  StackedChart c;
  c.id = "criteria-chart";
  c.title = "Criteria against their targets";
  c.axis_label = "predicted / target (1 = on target; at least 1 passes; capped at 2)";
  c.series = {"pass", "fail"};
  c.colours = {"#1a7f37", "#cf222e"};
  for (const Criterion& k : g.criteria) {
    if (k.verdict != Verdict::kPass && k.verdict != Verdict::kFail) continue;
    const double m = std::min(k.margin, 2.0);
    c.bars.push_back({k.name, k.verdict == Verdict::kPass ? std::vector<double>{m, 0} : std::vector<double>{0, m}});
  }
  c.markers = {{"target", 1.0}};
  c.axis_max = 2;
  return c;
}

}  // namespace

void write_golive_html(std::ostream& out, const GoLiveDocument& g) {
  const bool pass = g.all_pass();
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>Go-live report: " << escape_markup(g.file) << "</title>\n<style>" << kStyle
      << "</style>\n</head>\n<body>\n";
  out << "<h1>Go-live report: " << escape_markup(g.file) << "</h1>\n";
  out << "<p>cluster: " << escape_markup(g.cluster) << "<br>workload: " << escape_markup(g.workload) << "</p>\n";
  out << "<p class=\"banner " << (pass ? "pass" : "fail") << "\" id=\"overall\">"
      << (pass ? "PASS: every evaluated criterion passes" : "FAIL: at least one criterion fails") << "</p>\n";

  out << "<h2>Acceptance criteria</h2>\n<table id=\"criteria\">\n<thead><tr><th>criterion</th><th>predicted</th>"
      << "<th>target</th><th>verdict</th><th>what to change</th></tr></thead>\n<tbody>\n";
  for (const Criterion& c : g.criteria) {
    out << "<tr class=\"criterion " << css_class(c.verdict) << "\">" << td(c.name) << td(c.predicted) << td(c.target)
        << "<td class=\"verdict " << css_class(c.verdict) << "\">"
        << escape_markup(std::string(verdict_text(c.verdict))) << "</td>" << td(c.remedy) << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
  out << stacked_chart_svg(criteria_chart(g));

  out << "<h2>How each figure was reckoned</h2>\n<ul class=\"note\">\n";
  for (const Criterion& c : g.criteria) {
    if (!c.note.empty()) out << "<li><b>" << escape_markup(c.name) << "</b>: " << escape_markup(c.note) << "</li>\n";
  }
  out << "</ul>\n";

  out << "<h2>Where the step goes</h2>\n";
  if (!g.no_step.empty()) out << "<p>" << escape_markup(g.no_step) << "</p>\n";
  for (const StackedChart& chart : g.charts) out << stacked_chart_svg(chart);

  out << "<h2>Pilot then production</h2>\n";
  if (!g.pilot) out << "<p>No pilot named (<code>report.pilot</code>): this cluster's figures alone.</p>\n";
  out << "<table id=\"pilot\">\n<thead><tr><th>figure</th><th>pilot</th><th>this cluster</th></tr></thead>\n<tbody>\n";
  for (const SideBySideRow& r : g.side_by_side)
    out << "<tr>" << td(r.figure) << td(r.pilot) << td(r.cluster) << "</tr>\n";
  out << "</tbody>\n</table>\n";
  out << "<p class=\"note\">Written by fathom report (docs/go-live.md).</p>\n</body>\n</html>\n";
}

}  // namespace fathom::report
