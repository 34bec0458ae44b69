// Horizontal stacked bar charts as inline SVG, drawn by fathom itself so that the go-live report
// is one self-contained file: no script, no external URL. Each bar is a row (a cluster, a
// pipeline stage, a criterion), each series a colour; vertical markers draw limits (HBM,
// a target). Every rectangle carries class="bar" and a <title> with its value, so a browser
// shows the figure on hover and a test can count the bars.
#pragma once

#include <string>
#include <vector>

namespace fathom::report {

struct ChartBar {
  std::string label;
  std::vector<double> values;  // one per series, in the axis' unit; 0 draws nothing
};

struct ChartMarker {
  std::string label;
  double at = 0;
};

struct StackedChart {
  std::string id;  // the <svg>'s id
  std::string title;
  std::string axis_label;  // with its unit: "seconds per step"
  std::vector<std::string> series;
  std::vector<std::string> colours;  // one per series (CSS colours); a palette when empty
  std::vector<ChartBar> bars;
  std::vector<ChartMarker> markers;
  double axis_max = 0;  // 0: the largest bar or marker
};

// The chart as an <svg> element.
std::string stacked_chart_svg(const StackedChart& chart);

// Text escaped for HTML and SVG (& < > ").
std::string escape_markup(const std::string& text);

}  // namespace fathom::report
