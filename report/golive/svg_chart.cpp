#include "report/golive/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace fathom::report {

namespace {

constexpr double kWidth = 760;
constexpr double kLabelWidth = 250;  // the bars' names, left of the plot
constexpr double kRight = 24;
constexpr double kTop = 34;  // the title
constexpr double kRow = 26;
constexpr double kBarHeight = 18;

// Colour-blind-safe (Okabe and Ito's palette).
const std::vector<std::string> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                           "#56B4E9", "#D55E00", "#F0E442", "#999999"};

std::string fixed(double v, int decimals = 1) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A bar's name as it fits left of the plot (about 36 characters at 12 px); the whole name stays
// in the bar's <title>.
std::string fitted(const std::string& label) {
  constexpr std::size_t kMax = 36;
  return label.size() <= kMax ? label : label.substr(0, kMax - 3) + "...";
}

std::string tick_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A round step (1, 2 or 5 times a power of ten) that gives about five ticks up to `max`.
double tick_step(double max) {
  const double raw = max / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

}  // namespace

std::string escape_markup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string stacked_chart_svg(const StackedChart& chart) {
  double max = chart.axis_max;
  if (max <= 0) {
    for (const ChartBar& b : chart.bars) {
      double sum = 0;
      for (double v : b.values) sum += std::max(0.0, v);
      max = std::max(max, sum);
    }
    for (const ChartMarker& m : chart.markers) max = std::max(max, m.at);
  }
  if (!(max > 0)) max = 1;
  const double step = tick_step(max);
  max = std::ceil(max / step - 1e-9) * step;
  const double plot_width = kWidth - kLabelWidth - kRight;
  const double plot_height = kRow * static_cast<double>(chart.bars.size());
  const double axis_y = kTop + plot_height;
  // The legend names the series that draw something, wrapped onto as many lines as it needs.
  struct LegendItem {
    std::size_t series;
    double x, y;
  };
  std::vector<LegendItem> legend;
  double lx = kLabelWidth;
  double ly = axis_y + 56;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const bool drawn = std::any_of(chart.bars.begin(), chart.bars.end(),
                                   [&](const ChartBar& b) { return i < b.values.size() && b.values[i] > 0; });
    if (!drawn) continue;
    const double w = 28 + 6.5 * static_cast<double>(chart.series[i].size());
    if (lx + w > kWidth && lx > kLabelWidth) {
      lx = kLabelWidth;
      ly += 18;
    }
    legend.push_back({i, lx, ly});
    lx += w;
  }
  const double height = ly + 12;
  const auto x_of = [&](double v) { return kLabelWidth + plot_width * std::clamp(v / max, 0.0, 1.0); };
  const auto colour = [&](std::size_t i) {
    return i < chart.colours.size() ? chart.colours[i] : kPalette[i % kPalette.size()];
  };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" << escape_markup(chart.id) << "\" class=\"chart\" width=\""
    << kWidth << "\" height=\"" << fixed(height, 0) << "\" viewBox=\"0 0 " << kWidth << ' ' << fixed(height, 0)
    << "\" role=\"img\" aria-label=\"" << escape_markup(chart.title) << "\">\n";
  o << "<text class=\"title\" x=\"0\" y=\"18\">" << escape_markup(chart.title) << "</text>\n";
  // Grid and ticks.
  for (double t = 0; t <= max + step / 2; t += step) {
    const double x = x_of(t);
    o << "<line class=\"grid\" x1=\"" << fixed(x) << "\" y1=\"" << kTop << "\" x2=\"" << fixed(x) << "\" y2=\""
      << fixed(axis_y) << "\"/>";
    o << "<text class=\"tick\" x=\"" << fixed(x) << "\" y=\"" << fixed(axis_y + 14) << "\" text-anchor=\"middle\">"
      << tick_text(t) << "</text>\n";
  }
  o << "<text class=\"axis\" x=\"" << fixed(kLabelWidth + plot_width / 2) << "\" y=\"" << fixed(axis_y + 32)
    << "\" text-anchor=\"middle\">" << escape_markup(chart.axis_label) << "</text>\n";
  // Bars.
  for (std::size_t r = 0; r < chart.bars.size(); ++r) {
    const ChartBar& bar = chart.bars[r];
    const double y = kTop + kRow * static_cast<double>(r) + (kRow - kBarHeight) / 2;
    o << "<text class=\"label\" x=\"" << fixed(kLabelWidth - 8) << "\" y=\"" << fixed(y + kBarHeight - 5)
      << "\" text-anchor=\"end\">" << escape_markup(fitted(bar.label)) << "</text>\n";
    double at = 0;
    for (std::size_t i = 0; i < bar.values.size(); ++i) {
      const double v = std::max(0.0, bar.values[i]);
      if (v <= 0) continue;
      const double x0 = x_of(at);
      const double x1 = x_of(at + v);
      at += v;
      const std::string series = i < chart.series.size() ? chart.series[i] : "";
      o << "<rect class=\"bar\" data-series=\"" << escape_markup(series) << "\" x=\"" << fixed(x0, 2) << "\" y=\""
        << fixed(y) << "\" width=\"" << fixed(std::max(x1 - x0, 0.5), 2) << "\" height=\"" << kBarHeight << "\" fill=\""
        << colour(i) << "\"><title>" << escape_markup(bar.label + ": " + series + " " + tick_text(v))
        << "</title></rect>\n";
    }
  }
  // Markers over the bars, labelled at the top.
  for (const ChartMarker& m : chart.markers) {
    const double x = x_of(m.at);
    o << "<line class=\"marker\" x1=\"" << fixed(x) << "\" y1=\"" << kTop - 4 << "\" x2=\"" << fixed(x) << "\" y2=\""
      << fixed(axis_y) << "\"/>";
    o << "<text class=\"marker-label\" x=\"" << fixed(x - 3) << "\" y=\"" << kTop - 7 << "\" text-anchor=\"end\">"
      << escape_markup(m.label) << "</text>\n";
  }
  for (const LegendItem& l : legend) {
    o << "<rect class=\"legend\" x=\"" << fixed(l.x) << "\" y=\"" << fixed(l.y - 10) << "\" width=\"12\" "
      << "height=\"12\" fill=\"" << colour(l.series) << "\"/>";
    o << "<text class=\"legend-label\" x=\"" << fixed(l.x + 16) << "\" y=\"" << fixed(l.y) << "\">"
      << escape_markup(chart.series[l.series]) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fathom::report
