#include "engine/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/report/html_escape.h"

namespace pe::report::svg {

std::string Px(double value) { return fmt::format("{:.1f}", value); }

double NiceStep(double span) {
  double raw = span / 6;
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

// Values equal up to rounding (a ratio of two equally perturbed medians) count as one
// value: the axis then gets a span of its own instead of a zero-width one.
Axis LinearAxis(double lo, double hi, bool from_zero) {
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi - lo <= 1e-9 * std::max(std::fabs(lo), std::fabs(hi))) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    return {lo - (from_zero && lo == 0 ? 0 : pad), hi + pad, false};
  }
  double pad = (hi - lo) * 0.06;
  return {from_zero && lo == 0 ? 0 : lo - pad, hi + pad, false};
}

Axis LogAxis(double lo, double hi) {
  if (hi <= lo * (1 + 1e-9)) return {lo / 1.5, hi * 1.5, true};
  double pad = std::pow(hi / lo, 0.06);
  return {lo / pad, hi * pad, true};
}

// A log axis when the values span more than `fold`-fold, else a linear one.
Axis AxisFor(double lo, double hi, double fold, bool from_zero) {
  if (lo > 0 && hi / lo > fold) return LogAxis(lo, hi);
  return LinearAxis(lo, hi, from_zero);
}

std::vector<double> LinearTicks(double lo, double hi) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  double step = NiceStep(hi - lo);
  if (!(step > 0) || (hi - lo) / step > 20) return ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

// 1-2-5 in each decade; every decade alone when that gives too many; plain steps when
// the axis spans less than a decade and 1-2-5 would leave fewer than three ticks.
std::vector<double> Ticks(const Axis& axis) {
  if (!axis.log) return LinearTicks(axis.lo, axis.hi);
  auto within = [&](double t) { return t >= axis.lo * (1 - 1e-9) && t <= axis.hi * (1 + 1e-9); };
  std::vector<double> ticks;
  for (int d = static_cast<int>(std::floor(std::log10(axis.lo))); d <= static_cast<int>(std::ceil(std::log10(axis.hi)));
       ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      double t = m * std::pow(10, d);
      if (within(t)) ticks.push_back(t);
    }
  }
  if (ticks.size() > 9) {
    std::erase_if(ticks, [](double t) {
      double mantissa = t / std::pow(10, std::floor(std::log10(t) + 1e-9));
      return std::fabs(mantissa - 1) > 1e-6;
    });
  }
  if (ticks.size() < 3) return LinearTicks(axis.lo, axis.hi);
  return ticks;
}

// Three significant digits without exponents: "0.05", "1.5", "960", "3264".
std::string Number(double value) {
  if (value == 0) return "0";
  if (std::fabs(value) >= 1000) return fmt::format("{:.0f}", value);
  return fmt::format("{:.3g}", value);
}

std::size_t TitleWidthInChars(std::string_view text) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '&') {  // an entity (&amp;) draws one character
      const std::size_t end = text.find(';', i);
      if (end != std::string_view::npos) i = end;
    }
    if ((c & 0xC0) != 0x80) ++chars;  // UTF-8 continuation bytes draw nothing of their own
  }
  return chars;
}

std::vector<std::string> WrapTitle(std::string_view title, std::size_t max_chars) {
  std::vector<std::string> lines;
  std::string line;
  auto flush = [&] {
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
  };
  std::size_t start = 0;
  while (start <= title.size()) {
    std::size_t end = title.find(' ', start);
    if (end == std::string_view::npos) end = title.size();
    std::string_view word = title.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    const std::size_t joined = TitleWidthInChars(line) + (line.empty() ? 0 : 1) + TitleWidthInChars(word);
    if (joined > max_chars) flush();
    // A word longer than a line (a workload name without spaces) is cut where it must be,
    // never inside an entity or a UTF-8 character.
    while (TitleWidthInChars(word) > max_chars) {
      std::size_t cut = 0, chars = 0;
      while (cut < word.size() && chars < max_chars) {
        std::size_t next = cut + 1;
        if (word[cut] == '&' && word.find(';', cut) != std::string_view::npos) next = word.find(';', cut) + 1;
        while (next < word.size() && (static_cast<unsigned char>(word[next]) & 0xC0) == 0x80) ++next;
        cut = next;
        ++chars;
      }
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  flush();
  if (lines.empty()) lines.emplace_back();
  return lines;
}

std::string OpenChart(std::string_view classes, const std::string& id, const Frame& frame, const std::string& title) {
  // The title starts at the left edge and wraps to the chart's width; extra lines get room of
  // their own above the chart (the view box grows upwards), so the plot's coordinates stay.
  const auto max_chars = static_cast<std::size_t>((frame.width - 2 * kTitleX) / kTitleCharWidth);
  const std::vector<std::string> lines = WrapTitle(title, max_chars);
  const double extra = kTitleLineHeight * static_cast<double>(lines.size() - 1);
  std::string text = fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"{}\">", Px(kTitleX), Px(20 - extra));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    text += i == 0 ? fmt::format("<tspan x=\"{}\">{}</tspan>", Px(kTitleX), lines[i])
                   : fmt::format("<tspan x=\"{}\" dy=\"{}\">{}</tspan>", Px(kTitleX), Px(kTitleLineHeight), lines[i]);
  }
  return fmt::format(
      "<svg class=\"chart {}\" id=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 {} {} {}\" "
      "role=\"img\">\n<title>{}</title>\n{}</text>\n",
      classes, id, Px(frame.width), Px(frame.height + extra), Px(0 - extra), Px(frame.width), Px(frame.height + extra),
      title, text);
}

// Grid lines, tick labels and the axis title along the bottom of the plot.
std::string XAxis(const Frame& frame, const Axis& x, const std::vector<double>& ticks, const Label& label,
                  std::string_view title) {
  std::string svg;
  for (double t : ticks) {
    double px = x(t);
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", Px(px),
                       Px(frame.PlotTop()), Px(frame.PlotBottom()));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Px(px),
                       Px(frame.PlotBottom() + 15), EscapeHtml(label(t)));
  }
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", Px(frame.PlotLeft()),
                     Px(frame.PlotRight()), Px(frame.PlotBottom()));
  if (title.empty()) return svg;
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Px((frame.PlotLeft() + frame.PlotRight()) / 2), Px(frame.PlotBottom() + 34), title);
  return svg;
}

std::string YAxis(const Frame& frame, const Axis& y, const std::vector<double>& ticks, const Label& label,
                  std::string_view title) {
  std::string svg;
  for (double t : ticks) {
    double py = y(t);
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", Px(frame.PlotLeft()),
                       Px(frame.PlotRight()), Px(py));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Px(frame.PlotLeft() - 6), Px(py + 4),
                       EscapeHtml(label(t)));
  }
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", Px(frame.PlotLeft()),
                     Px(frame.PlotTop()), Px(frame.PlotBottom()));
  double cy = (frame.PlotTop() + frame.PlotBottom()) / 2;
  svg += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1}</text>\n",
                     Px(cy), title);
  return svg;
}

std::string BarChart(std::string_view classes, const std::string& id, const std::string& title,
                     const std::vector<std::string>& categories, const std::vector<BarSeries>& series,
                     const Label& y_label, std::string_view axis, std::string_view y_title) {
  constexpr double kLegendLine = 17;
  Frame frame;
  frame.bottom += kLegendLine * static_cast<double>(series.size()) + 6;
  frame.height = frame.top + 230 + frame.bottom;
  double top = 0;
  for (const BarSeries& s : series) {
    for (const std::optional<double>& v : s.values) {
      if (v && std::isfinite(*v)) top = std::max(top, *v);
    }
  }
  Axis y = LinearAxis(0, top > 0 ? top : 1, true);
  y.from = frame.PlotBottom();
  y.to = frame.PlotTop();
  // Category i is centred at i: the axis runs from -0.5 to n - 0.5, a slot of width 1 each.
  Axis x;
  x.lo = -0.5;
  x.hi = static_cast<double>(categories.size()) - 0.5;
  x.from = frame.PlotLeft();
  x.to = frame.PlotRight();
  std::vector<double> ticks;
  for (std::size_t i = 0; i < categories.size(); ++i) ticks.push_back(static_cast<double>(i));
  const Label category = [&](double i) { return categories.at(static_cast<std::size_t>(std::lround(i))); };
  std::string svg = OpenChart(classes, id, frame, title);
  svg += XAxis(frame, x, ticks, category, EscapeHtml(axis));
  svg += YAxis(frame, y, Ticks(y), y_label, y_title);
  const double slot = categories.empty() ? 0 : (frame.PlotRight() - frame.PlotLeft()) / categories.size();
  const double bar = series.empty() ? 0 : slot * 0.8 / static_cast<double>(series.size());
  for (std::size_t s = 0; s < series.size(); ++s) {
    const BarSeries& one = series[s];
    svg += fmt::format("<g class=\"series\" data-series=\"{}\">\n", EscapeHtml(one.label));
    for (std::size_t i = 0; i < categories.size() && i < one.values.size(); ++i) {
      const std::optional<double>& v = one.values[i];
      if (!v || !std::isfinite(*v)) continue;
      const double left = x(static_cast<double>(i)) - slot * 0.4 + bar * static_cast<double>(s);
      svg += fmt::format(
          "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} at {}={}</title>"
          "</rect>\n",
          Px(left), Px(y(*v)), Px(bar), Px(y(0) - y(*v)), one.color, EscapeHtml(one.label), EscapeHtml(y_label(*v)),
          EscapeHtml(axis), EscapeHtml(categories[i]));
    }
    const double ly = frame.height - frame.bottom + 52 + kLegendLine * static_cast<double>(s);
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"28\" height=\"8\" fill=\"{}\"/>\n<text x=\"{}\" y=\"{}\">{}</text>\n",
        Px(frame.PlotLeft()), Px(ly - 4), one.color, Px(frame.PlotLeft() + 34), Px(ly + 4), EscapeHtml(one.label));
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace pe::report::svg
