#include "engine/history/trend_html.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/report/html_escape.h"
#include "engine/units/units.h"

namespace pe::history {

namespace {

using report::EscapeHtml;

constexpr double kWidth = 720, kHeight = 250, kLeft = 84, kRight = 20, kTop = 20, kBottom = 46;

// One workload's chart: the figure per run (x: run order, y: value from 0), a dashed line at
// each change point, the value at each end of the y axis.
std::string Chart(const WorkloadSeries& series, const std::string& figure, const TrendOptions& options,
                  const std::vector<Point>& points) {
  const std::string& workload = series.workload;
  double top = 0;
  for (const Point& p : points) top = std::max(top, p.value);
  if (top <= 0) top = 1;
  top *= 1.1;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto x = [&](size_t i) { return kLeft + (points.size() < 2 ? plot_w / 2 : plot_w * i / (points.size() - 1)); };
  const auto y = [&](double v) { return kTop + plot_h * (1 - v / top); };
  std::string svg =
      fmt::format("<svg class=\"trend\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{} of {} over {}\">\n",
                  kWidth, kHeight, EscapeHtml(figure), EscapeHtml(workload),
                  units::FormatCount(static_cast<long long>(points.size()), "run"));
  svg +=
      fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"axis\"/>\n", kLeft, kTop, kTop + plot_h);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"axis\"/>\n", kLeft, kTop + plot_h,
                     kLeft + plot_w);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, kTop + 4,
                     units::FormatSignificant(top, 4));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n", kLeft - 6, kTop + plot_h + 4);
  // Axis titles: runs along the bottom, the figure and which way is better up the side.
  const FigureInfo info = DescribeFigure(figure);
  svg += fmt::format(
      "<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">run (oldest first, 1 to {})</text>\n",
      kLeft + plot_w / 2, kTop + plot_h + 34, points.size());
  svg += fmt::format(
      "<text class=\"axis-title\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1} "
      "({2} is better)</text>\n",
      kTop + plot_h / 2, EscapeHtml(figure), info.higher_is_better ? "higher" : "lower");
  std::vector<double> values;
  for (const Point& p : points) values.push_back(p.value);
  for (size_t at : SeriesChangePoints(series, options, values)) {
    const double cx = (x(at - 1) + x(at)) / 2;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"change\"><title>change point at run {3}"
        "</title></line>\n",
        cx, kTop, kTop + plot_h, at + 1);
  }
  std::string line;
  for (size_t i = 0; i < points.size(); ++i)
    line += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x(i), y(points[i].value));
  svg += fmt::format("<polyline points=\"{}\" class=\"series\"/>\n", line);
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>run {}: {}, {}, {}, {}</title></circle>\n",
                       x(i), y(p.value), i + 1, units::FormatSignificant(p.value, 4), EscapeHtml(p.started_at),
                       EscapeHtml(p.commit.substr(0, 12)), EscapeHtml(p.hostname));
  }
  return svg + "</svg>\n";
}

}  // namespace

std::string TrendHtml(const std::vector<WorkloadSeries>& series, const TrendOptions& options,
                      const std::string& title) {
  // TrendText checks the selection and gives the table under each chart.
  const std::string text = TrendText(series, options);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n<style>\n"
      "body {{ font-family: sans-serif; margin: 2em; }} svg text {{ font-size: 11px; }}\n"
      ".axis {{ stroke: #888; }} .series {{ fill: none; stroke: #1f77b4; stroke-width: 2; }}\n"
      "circle {{ fill: #1f77b4; }} .change {{ stroke: #d62728; stroke-dasharray: 4 3; }}\n"
      "pre {{ background: #f6f6f6; padding: 0.5em; overflow-x: auto; }}\n</style>\n</head>\n<body>\n<h1>{0}</h1>\n",
      EscapeHtml(title));
  for (const WorkloadSeries& s : series) {
    if (!options.workloads.empty() &&
        std::find(options.workloads.begin(), options.workloads.end(), s.workload) == options.workloads.end()) {
      continue;
    }
    html += fmt::format("<section>\n<h2>{}</h2>\n", EscapeHtml(s.workload));
    // The same figures as the text: those the recorded gates checked, by default.
    for (const std::string& figure : ChosenFigures(s, options)) {
      const auto found =
          std::find_if(s.figures.begin(), s.figures.end(), [&](const auto& f) { return f.first == figure; });
      if (found == s.figures.end()) {
        html += fmt::format("<p>No {} recorded.</p>\n", EscapeHtml(figure));
        continue;
      }
      const FigureInfo info = DescribeFigure(figure);
      html += fmt::format("<p class=\"figure\">{}: {}; higher is {}; {}.</p>\n", EscapeHtml(figure),
                          EscapeHtml(info.description), info.higher_is_better ? "better" : "worse",
                          EscapeHtml(GateLine(s, figure)));
      html += Chart(s, figure, options, found->second);
    }
    html += "</section>\n";
  }
  return html + fmt::format("<h2>Runs</h2>\n<pre>{}</pre>\n</body>\n</html>\n", EscapeHtml(text));
}

}  // namespace pe::history
