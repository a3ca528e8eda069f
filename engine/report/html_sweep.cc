// The HTML report's sweep sections: the sweep's tables, fits and thresholds, and its charts
// (throughput against threads, time against scale, bars per level).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "engine/model/samples.h"
#include "engine/model/scaling_bounds.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_page.h"
#include "engine/report/svg_chart.h"
#include "engine/report/text.h"
#include "engine/units/units.h"

namespace pe::report::html {

using model::AxisValue;
using model::RunResult;
using model::ScalingFit;
using model::SweepResult;
namespace {

using namespace svg;  // NOLINT: the chart vocabulary (Axis, Frame, Ticks) reads best unqualified here

// ---------------------------------------------------------------------------------------
// Per sweep: lines across the points, one per contender and configuration.

struct Series {
  std::string label;
  std::string_view color;
  std::string_view dash;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// The legend sits under the x axis title, one entry per line.
constexpr double kLegendLine = 17;

std::string LineChart(std::string_view classes, const std::string& id, const std::string& title,
                      const std::vector<Series>& series, bool x_log, bool y_log, const std::vector<double>& x_values,
                      const Label& y_label, std::string_view x_title, std::string_view y_title) {
  Frame frame;
  frame.bottom += kLegendLine * series.size() + 6;
  frame.height = frame.top + 230 + frame.bottom;
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const auto& s : series) {
    for (const auto& [px, py] : s.points) {
      x_lo = std::min(x_lo, px);
      x_hi = std::max(x_hi, px);
      y_lo = std::min(y_lo, py);
      y_hi = std::max(y_hi, py);
    }
  }
  Axis x = x_log ? LogAxis(x_lo, x_hi) : LinearAxis(x_lo, x_hi, true);
  Axis y = y_log ? LogAxis(y_lo, y_hi) : LinearAxis(y_lo, y_hi, true);
  x.from = frame.PlotLeft();
  x.to = frame.PlotRight();
  y.from = frame.PlotBottom();
  y.to = frame.PlotTop();
  // Ticks at the sweep's own values read better than round numbers between them.
  std::vector<double> x_ticks = x_values;
  if (!x_log && x.lo == 0 && std::find(x_ticks.begin(), x_ticks.end(), 0) == x_ticks.end()) {
    x_ticks.insert(x_ticks.begin(), 0);
  }

  std::string svg = OpenChart(classes, id, frame, title);
  svg += XAxis(frame, x, x_ticks, Number, x_title);
  svg += YAxis(frame, y, Ticks(y), y_label, y_title);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    std::string dash = s.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", s.dash);
    svg += fmt::format("<g class=\"series\" data-series=\"{}\">\n", EscapeHtml(s.label));
    std::string points;
    for (const auto& [px, py] : s.points) points += fmt::format("{},{} ", Px(x(px)), Px(y(py)));
    if (!points.empty()) points.pop_back();
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", points, s.color,
                       dash);
    for (const auto& [px, py] : s.points) {
      svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}: {} at {}</title></circle>\n",
                         Px(x(px)), Px(y(py)), s.color, EscapeHtml(s.label), EscapeHtml(y_label(py)), Number(px));
    }
    double ly = frame.height - frame.bottom + 52 + kLegendLine * i;
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>\n"
        "<text x=\"{5}\" y=\"{6}\">{7}</text>\n",
        Px(frame.PlotLeft()), Px(frame.PlotLeft() + 28), Px(ly), s.color, dash, Px(frame.PlotLeft() + 34), Px(ly + 4),
        EscapeHtml(s.label));
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

std::string SeriesLabel(std::string_view contender, const std::string& configuration) {
  std::string label = OneLine(contender);
  if (!configuration.empty()) label += ", " + OneLine(configuration);
  return label;
}

std::vector<double> DistinctX(const std::vector<Series>& series) {
  std::set<double> values;
  for (const auto& s : series) {
    for (const auto& point : s.points) values.insert(point.first);
  }
  return {values.begin(), values.end()};
}

// One series per contender and table; `pick` gives the plotted figure of a row, or none.
std::vector<Series> SeriesOf(const RunResult& result, const std::vector<SweepTable>& tables,
                             const std::function<std::optional<double>(const SweepFigures&)>& pick,
                             const std::function<std::string(const SweepTable&, std::string_view)>& label) {
  std::vector<Series> series;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const SweepTable& table = tables[t];
    for (std::size_t c = 0; c < table.contenders.size(); ++c) {
      Series s{label(table, table.contenders[c]), ColorOf(result, table.contenders[c]), DashOf(t), {}};
      for (const auto& row : table.rows) {
        std::optional<double> y = pick(row.figures[c]);
        if (row.number && y && *y > 0) s.points.emplace_back(*row.number, *y);
      }
      std::sort(s.points.begin(), s.points.end());
      if (!s.points.empty()) series.push_back(std::move(s));
    }
  }
  return series;
}

const ScalingFit* FitFor(const SweepResult& sweep, std::string_view contender, const std::vector<AxisValue>& fixed) {
  for (const auto& fit : sweep.fits) {
    if (fit.contender != contender || fit.axis != kScaleAxis || fit.fixed.size() != fixed.size()) {
      continue;
    }
    bool same = std::all_of(fit.fixed.begin(), fit.fixed.end(), [&](const AxisValue& v) {
      return std::any_of(fixed.begin(), fixed.end(),
                         [&](const AxisValue& w) { return w.axis == v.axis && w.value == v.value; });
    });
    if (same) return &fit;
  }
  return nullptr;
}

std::pair<double, double> YRange(const std::vector<Series>& series) {
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const auto& s : series) {
    for (const auto& point : s.points) {
      lo = std::min(lo, point.second);
      hi = std::max(hi, point.second);
    }
  }
  return {lo, hi};
}

bool HasAxis(const SweepResult& sweep, std::string_view axis) {
  return std::find(sweep.axes.begin(), sweep.axes.end(), axis) != sweep.axes.end();
}

std::string SweepCharts(const RunResult& result, const SweepResult& sweep, IdMaker& ids) {
  std::string html;
  if (HasAxis(sweep, kThreadsAxis)) {
    std::vector<SweepTable> tables = SweepTables(result, sweep, kThreadsAxis);
    const std::string unit = tables.empty() ? "" : tables.front().unit;  // one workload: one unit
    std::vector<Series> series = SeriesOf(
        result, tables,
        [&](const SweepFigures& f) {
          return f.elements_per_s ? std::optional<double>(*f.elements_per_s / ThroughputDivisor(unit)) : std::nullopt;
        },
        [](const SweepTable& table, std::string_view contender) {
          return SeriesLabel(contender, table.configuration);
        });
    if (series.empty()) {
      html += Note("No throughput against threads: no point declared its elements.");
    } else {
      // When one contender is many times faster a linear axis flattens the other's line;
      // on a log axis every line keeps its shape and equal slopes mean equal scaling.
      auto [lo, hi] = YRange(series);
      bool y_log = hi / lo > 5;
      html += LineChart("throughput-vs-threads", ids("throughput", sweep.name),
                        fmt::format("Throughput against threads: {}", Esc(sweep.name)), series, false, y_log,
                        DistinctX(series), Number, "threads",
                        y_log ? fmt::format("throughput ({}, log scale)", ThroughputUnit(unit))
                              : fmt::format("throughput ({})", ThroughputUnit(unit)));
    }
  }
  if (HasAxis(sweep, kScaleAxis)) {
    std::vector<SweepTable> tables = SweepTables(result, sweep, kScaleAxis);
    std::vector<Series> series = SeriesOf(
        result, tables, [](const SweepFigures& f) { return f.median_wall_s; },
        [&](const SweepTable& table, std::string_view contender) {
          std::string label = SeriesLabel(contender, table.configuration);
          const ScalingFit* fit = FitFor(sweep, contender, table.fixed);
          if (fit != nullptr && model::NoScalingLaw(*fit)) {
            label += " (no scaling law)";  // its exponent means nothing (engine/model/scaling_bounds.h)
          } else if (fit != nullptr && std::isfinite(fit->exponent)) {
            label += fmt::format(" (k = {:.2f})", fit->exponent);
          }
          return label;
        });
    if (series.empty()) {
      html += Note("No time against scale: no point has a measured median.");
    } else {
      html += LineChart("time-vs-scale", ids("scale", sweep.name),
                        fmt::format("Median time against scale: {}", Esc(sweep.name)), series, true, true,
                        DistinctX(series), units::FormatSeconds, "scale (log scale)", "median wall time (log scale)");
    }
  }
  // A sweep over plain variables (`parameters`, levels such as "1", "3", "9"): no axis with a
  // meaning to plot against, so each contender's median per level as bars, one chart per table.
  if (!HasAxis(sweep, kThreadsAxis) && !HasAxis(sweep, kScaleAxis) && !sweep.axes.empty()) {
    const std::string axis = RowAxis(sweep.axes);
    for (const SweepTable& table : SweepTables(result, sweep, axis)) {
      std::vector<std::string> levels;
      for (const SweepRow& row : table.rows) levels.push_back(OneLine(row.value));
      std::vector<BarSeries> series;
      bool any = false;
      for (std::size_t c = 0; c < table.contenders.size(); ++c) {
        BarSeries bars{OneLine(table.contenders[c]), ColorOf(result, table.contenders[c]), {}};
        for (const SweepRow& row : table.rows) {
          bars.values.push_back(row.figures[c].median_wall_s);
          any = any || row.figures[c].median_wall_s.has_value();
        }
        series.push_back(std::move(bars));
      }
      const std::string where = table.configuration.empty() ? "" : fmt::format(" ({})", table.configuration);
      if (!any) {
        html += Note(fmt::format("No median time per {}{}: no point has a measured median.", Esc(axis), Esc(where)));
        continue;
      }
      html += BarChart("time-per-level", ids("levels", sweep.name + where),
                       fmt::format("Median time per {}: {}{}", Esc(axis), Esc(sweep.name), Esc(where)), levels, series,
                       units::FormatSeconds, OneLine(axis), "median wall time");
    }
  }
  return html;
}

// Two heading rows: each contender's name over its columns, then what each column holds,
// so the table stays narrow however long the names are.
std::string SweepHeading(const SweepTable& table) {
  int per_contender = 1 + (table.has_throughput ? 1 : 0) + (table.has_efficiency ? 1 : 0);
  std::string names = fmt::format("<tr><th rowspan=\"2\">{}</th>", Esc(table.axis));
  std::string figures = "<tr>";
  for (const auto& contender : table.contenders) {
    names += fmt::format("<th colspan=\"{}\" class=\"contender\">{}</th>", per_contender, Esc(contender));
    figures += "<th>median time</th>";
    if (table.has_throughput) figures += fmt::format("<th>{}</th>", Esc(ThroughputUnit(table.unit)));
    if (table.has_efficiency) figures += "<th>efficiency</th>";
  }
  return names + "</tr>\n" + figures + "</tr>\n";
}

}  // namespace

std::string SweepSectionHtml(const RunResult& result, const SweepSection& section, const SweepResult& sweep,
                             IdMaker& ids) {
  std::string html =
      fmt::format("<section class=\"sweep\" id=\"{}\">\n<h2>Sweep {} ({})</h2>\n", ids("sweep", section.name),
                  Esc(section.name), Esc(fmt::format("{}", fmt::join(section.axes, " x "))));
  for (const auto& table : section.tables) {
    if (!table.configuration.empty()) html += fmt::format("<h3>{}</h3>\n", Esc(table.configuration));
    html += "<table class=\"sweep-table\">\n" + SweepHeading(table);
    for (const auto& cells : SweepCells(table)) {
      html += "<tr>";
      for (const auto& cell : cells) html += fmt::format("<td>{}</td>", Esc(cell));
      html += "</tr>\n";
    }
    html += "</table>\n";
  }
  if (!section.fit_lines.empty()) {
    html += "<ul class=\"fits\">\n";
    for (const auto& line : section.fit_lines) html += fmt::format("<li>{}</li>\n", Esc(line));
    html += "</ul>\n";
  }
  if (!section.threshold_lines.empty()) {
    html += fmt::format("<p>Thresholds: {}.</p>\n", Esc(fmt::format("{}", fmt::join(section.threshold_lines, "; "))));
  }
  html += "<div class=\"charts\">\n" + SweepCharts(result, sweep, ids) + "</div>\n";
  return html + "</section>\n";
}

}  // namespace pe::report::html
