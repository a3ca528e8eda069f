// The SVG charts' frames, axes and ticks, for the HTML report (html_reporter.cc draws the
// charts themselves). Coordinates print with one decimal, so output is byte-stable.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe::report::svg {

// A pixel coordinate: "12.5".
std::string Px(double value);

// Maps values in [lo, hi] to pixels in [from, to], linearly or on log10.
struct Axis {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double from = 0;  // pixel of lo
  double to = 1;    // pixel of hi

  double operator()(double value) const {
    double t =
        log ? (std::log10(value) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (value - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

// A 1-2-5 step giving about six intervals over `span`.
double NiceStep(double span);

// Padded 6% each side; equal ends (up to rounding) get a span of their own. `from_zero`
// starts a non-negative axis at 0.
Axis LinearAxis(double lo, double hi, bool from_zero);
Axis LogAxis(double lo, double hi);
// A log axis when the values span more than `fold`-fold, else a linear one.
Axis AxisFor(double lo, double hi, double fold, bool from_zero);

// Multiples of NiceStep within [lo, hi]; none for an empty or non-finite range.
std::vector<double> LinearTicks(double lo, double hi);
// 1-2-5 in each decade of a log axis (every decade alone when that gives too many; linear
// ticks when fewer than three), linear ticks otherwise.
std::vector<double> Ticks(const Axis& axis);

// Three significant digits without exponents: "0.05", "1.5", "960", "3264".
std::string Number(double value);

// The plot area inside a chart of width x height, margins around it for labels.
struct Frame {
  double width = 540;
  double height = 300;
  double left = 70;
  double right = 20;
  double top = 34;
  double bottom = 46;

  double PlotLeft() const { return left; }
  double PlotRight() const { return width - right; }
  double PlotTop() const { return top; }
  double PlotBottom() const { return height - bottom; }
};

// The chart title's font (html_reporter.cc's .chart-title: 13px, bold) as the wrapping budgets
// it: a generous average character width, so a line of capitals still fits.
inline constexpr double kTitleX = 8;
inline constexpr double kTitleCharWidth = 8;
inline constexpr double kTitleLineHeight = 16;

// Characters a title draws: an entity (&amp;) counts as one, a UTF-8 character as one.
std::size_t TitleWidthInChars(std::string_view text);
// `title` (already escaped) in lines of at most `max_chars` characters, broken at spaces, a
// longer word cut where it must be; every character kept, in order.
std::vector<std::string> WrapTitle(std::string_view title, std::size_t max_chars);

// "<svg ...><title>..." with the title also drawn at the top left, wrapped to the chart's width
// (extra lines widen the view box upwards, so nothing is clipped); the caller closes </svg>.
std::string OpenChart(std::string_view classes, const std::string& id, const Frame& frame, const std::string& title);

using Label = std::function<std::string(double)>;

// Grid lines, tick labels and the axis title along the bottom of the plot.
std::string XAxis(const Frame& frame, const Axis& x, const std::vector<double>& ticks, const Label& label,
                  std::string_view title);
// The same up the left side, the title turned on its side.
std::string YAxis(const Frame& frame, const Axis& y, const std::vector<double>& ticks, const Label& label,
                  std::string_view title);

// A bar chart of categories that are names, not numbers (a parameter's levels, "1", "3", "9"
// or "fast", "best"): one group of bars per category, in the given order, and one bar per
// series in each group, from 0. Each bar has a <title> ("zstd: 41.2 ms at level=9"); a
// missing value leaves its slot empty. The legend sits under the x axis title, as a line
// chart's does.
struct BarSeries {
  std::string label;
  std::string_view color;
  std::vector<std::optional<double>> values;  // one per category
};
// `title` is already escaped; `categories`, the series' labels and `axis` (the category axis's
// name, e.g. "level") are escaped here.
std::string BarChart(std::string_view classes, const std::string& id, const std::string& title,
                     const std::vector<std::string>& categories, const std::vector<BarSeries>& series,
                     const Label& y_label, std::string_view axis, std::string_view y_title);

}  // namespace pe::report::svg
