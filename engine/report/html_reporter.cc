#include "engine/report/html_reporter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "engine/model/atomic_file.h"
#include "engine/model/names.h"
#include "engine/model/samples.h"
#include "engine/model/scaling_bounds.h"
#include "engine/report/confidence_lines.h"
#include "engine/report/machine_load_line.h"
#include "engine/report/overview.h"
#include "engine/report/provenance.h"
#include "engine/report/shards.h"
#include "engine/report/speedup_summary.h"
#include "engine/report/svg_chart.h"
#include "engine/report/sweep_report.h"
#include "engine/report/text.h"
#include "engine/units/units.h"
#include "stats/descriptive.h"

namespace pe::report {

using model::AxisValue;
using model::Comparison;
using model::ExitCode;
using model::Failure;
using model::FailureKindName;
using model::Interval;
using model::MachineInfo;
using model::Measured;
using model::Paired;
using model::PairedRounds;
using model::RunResult;
using model::Sample;
using model::ScalingFit;
using model::SweepResult;
using model::WorkloadResult;
using model::WriteFileAtomically;
namespace {

using namespace svg;  // NOLINT: the chart vocabulary (Axis, Frame, Ticks) reads best unqualified here

// ---------------------------------------------------------------------------------------
// Page furniture.

// The page may load nothing at all: the policy blocks any fetch an injected tag could
// start, and the empty data: icon keeps the browser from asking for /favicon.ico.
constexpr std::string_view kHead = R"(<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
)";

constexpr std::string_view kStyle = R"(<style>
body { font-family: system-ui, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1em; margin-bottom: 0.3em; }
p, li { max-width: 70em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 14px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; text-align: right; white-space: nowrap; }
th { background: #f4f4f6; font-weight: 600; }
th.contender { text-align: center; border-left: 2px solid #fff; }
th:first-child, td:first-child, td.verdict { text-align: left; }
.verdict.pass { color: #1a7f37; }
.verdict.missed, .verdict.failed { color: #cf222e; font-weight: 600; }
.verdict.not-gated { color: #6e7781; }
.summary { font-size: 1.2em; font-weight: 700; }
.summary.pass { color: #1a7f37; }
.summary.threshold-missed, .summary.run-failed { color: #cf222e; }
.summary.interrupted { color: #9a6700; }
.failing li { color: #cf222e; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; max-width: 100em; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
svg.chart { background: #fff; border: 1px solid #e4e4e4; }
svg.chart text { font-family: system-ui, sans-serif; font-size: 11px; fill: #333; }
svg.chart .chart-title { font-size: 13px; font-weight: 600; }
svg.chart .grid { stroke: #ececec; }
svg.chart .axis { stroke: #888; }
svg.chart .reference { stroke: #555; stroke-dasharray: 5 4; }
.note { color: #6e7781; }
</style>
)";

// One colour per contender, in spec order; the baseline is usually first (blue).
constexpr std::string_view kColors[] = {"#4269d0", "#e8702a", "#3ca951", "#d6336c", "#8a63d2", "#6c757d"};
// One dash pattern per sweep configuration.
constexpr std::string_view kDashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 4"};

std::string_view ColorOf(const RunResult& result, std::string_view contender) {
  for (std::size_t i = 0; i < result.contenders.size(); ++i) {
    if (result.contenders[i].name == contender) return kColors[i % std::size(kColors)];
  }
  return kColors[std::size(kColors) - 1];
}

std::string Esc(std::string_view text) { return EscapeHtml(OneLine(text)); }

// Ids stay readable ("box-dense-threads-2-allocator-mimalloc") and unique: a name that
// collides with an earlier one after the replacement gets a counter.
class IdMaker {
 public:
  std::string operator()(std::string_view prefix, std::string_view name) {
    std::string id(prefix);
    id += '-';
    for (char c : name) {
      bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
      if (keep) {
        id += c;
      } else if (id.back() != '-') {
        id += '-';
      }
    }
    while (id.size() > prefix.size() + 1 && id.back() == '-') id.pop_back();
    std::string unique = id;
    for (int n = 2; !used_.insert(unique).second; ++n) unique = fmt::format("{}-{}", id, n);
    return unique;
  }

 private:
  std::set<std::string> used_;
};

// ---------------------------------------------------------------------------------------
// Per workload: the time distribution of each contender, and the paired ratio by round.

struct ContenderRuns {
  std::string contender;
  std::vector<const Sample*> samples;  // measured, in run order
};

std::vector<ContenderRuns> RunsByContender(const RunResult& result, const WorkloadResult& workload) {
  std::vector<ContenderRuns> runs;
  for (const auto& contender : result.contenders) {
    ContenderRuns entry{contender.name, {}};
    for (const auto& sample : workload.samples) {
      if (sample.contender == contender.name && Measured(sample) && sample.wall_s > 0 && std::isfinite(sample.wall_s)) {
        entry.samples.push_back(&sample);
      }
    }
    if (!entry.samples.empty()) runs.push_back(std::move(entry));
  }
  return runs;
}

// Spreads dots across a band without randomness: the fractional parts of i times the
// golden ratio fill [0, 1) evenly and are the same on every run.
double Jitter(std::size_t i) {
  double spread = std::fmod(static_cast<double>(i + 1) * 0.6180339887498949, 1.0);
  return spread - 0.5;
}

// Contenders within kSharedAxisFold of each other share one linear axis, so their boxes
// compare by eye. Beyond that each gets its own band and axis: when one is a hundred times
// faster, a shared axis would squash its box to a line, and the spread within each
// contender is what this chart is for (the table and the ratio chart compare them).
constexpr double kSharedAxisFold = 3;

std::string BoxPlot(const RunResult& result, const WorkloadResult& workload, const std::vector<ContenderRuns>& runs,
                    const std::string& id) {
  constexpr double kBand = 84;
  Frame frame;
  frame.left = 120;
  frame.height = frame.top + kBand * runs.size() + 22;
  double all_lo = INFINITY;
  double all_hi = 0;
  for (const ContenderRuns& entry : runs) {
    for (const Sample* sample : entry.samples) {
      all_lo = std::min(all_lo, sample->wall_s);
      all_hi = std::max(all_hi, sample->wall_s);
    }
  }
  const bool shared = all_hi <= kSharedAxisFold * all_lo;
  std::string title = fmt::format("Wall time per run: {}", Esc(workload.name));
  std::string svg = OpenChart("box-plot", id, frame, title);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Px((frame.PlotLeft() + frame.PlotRight()) / 2), Px(frame.height - 10),
                     shared ? "wall time per run (one scale for every contender)"
                            : "wall time per run (each contender on its own scale: they differ more than 3x)");

  for (std::size_t c = 0; c < runs.size(); ++c) {
    const ContenderRuns& entry = runs[c];
    std::string_view color = ColorOf(result, entry.contender);
    Frame band = frame;
    band.top = frame.top + kBand * c;
    band.bottom = 0;
    band.height = band.top + 52;
    double mid = band.top + 22;
    double lo = shared ? all_lo : INFINITY;
    double hi = shared ? all_hi : 0;
    for (const Sample* sample : entry.samples) {
      lo = std::min(lo, sample->wall_s);
      hi = std::max(hi, sample->wall_s);
    }
    Axis x = LinearAxis(lo, hi, false);
    x.from = frame.PlotLeft();
    x.to = frame.PlotRight();
    svg += XAxis(band, x, Ticks(x), units::FormatSeconds, "");
    std::vector<double> walls;
    for (const Sample* sample : entry.samples) walls.push_back(sample->wall_s);
    std::vector<double> sorted = stats::Sorted(walls);
    double q1 = stats::QuantileOfSorted(sorted, 0.25);
    double median = stats::QuantileOfSorted(sorted, 0.5);
    double q3 = stats::QuantileOfSorted(sorted, 0.75);
    double reach = 1.5 * (q3 - q1);
    // Whiskers end at the furthest samples within 1.5 IQR of the box (Tukey).
    double whisker_lo = q1;
    double whisker_hi = q3;
    for (double w : sorted) {
      if (w >= q1 - reach) whisker_lo = std::min(whisker_lo, w);
      if (w <= q3 + reach) whisker_hi = std::max(whisker_hi, w);
    }

    svg += fmt::format("<g class=\"contender\" data-contender=\"{}\">\n", Esc(entry.contender));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Px(frame.PlotLeft() - 8), Px(mid + 4),
                       Esc(entry.contender));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>\n", Px(x(whisker_lo)),
                       Px(x(whisker_hi)), Px(mid), color);
    for (double end : {whisker_lo, whisker_hi}) {
      svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n", Px(x(end)),
                         Px(mid - 8), Px(mid + 8), color);
    }
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"0.15\" "
        "stroke=\"{}\"><title>{}: median {}, quartiles {} to {}</title></rect>\n",
        Px(x(q1)), Px(mid - 16), Px(std::max(1.0, x(q3) - x(q1))), Px(32.0), color, color, Esc(entry.contender),
        units::FormatSeconds(median), units::FormatSeconds(q1), units::FormatSeconds(q3));
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" "
        "stroke-width=\"2.5\"/>\n",
        Px(x(median)), Px(mid - 16), Px(mid + 16), color);
    for (std::size_t i = 0; i < entry.samples.size(); ++i) {
      const Sample& sample = *entry.samples[i];
      svg += fmt::format(
          "<circle class=\"sample\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\" fill-opacity=\"0.75\">"
          "<title>round {}: {}</title></circle>\n",
          Px(x(sample.wall_s)), Px(mid + Jitter(i) * 24), color, sample.round, units::FormatSeconds(sample.wall_s));
    }
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

// The page's one ratio convention, the table's: baseline / candidate, above 1 when the
// candidate is faster.
struct RoundRatio {
  int round = 0;
  double ratio = 0;  // baseline wall / candidate wall
};

std::vector<RoundRatio> PairedRatios(const RunResult& result, const WorkloadResult& workload) {
  const PairedRounds paired = Paired(result, workload);
  std::vector<RoundRatio> ratios;
  for (std::size_t i = 0; i < paired.rounds.size(); ++i) {
    const double b = paired.baseline[i], k = paired.candidate[i];
    if (!(b > 0) || !std::isfinite(b) || !(k > 0) || !std::isfinite(k)) continue;
    ratios.push_back({paired.rounds[i], b / k});
  }
  return ratios;
}

// The interval of the median speed-up the gate read (its confidence sequence), else the
// bootstrap interval; the text names which.
struct SpeedupInterval {
  const Interval* interval = nullptr;
  std::string_view kind;
};
SpeedupInterval IntervalOf(const WorkloadResult& workload) {
  if (!workload.comparison) return {};
  const Comparison& c = *workload.comparison;
  if (c.speedup_cs) return {&*c.speedup_cs, "confidence sequence"};
  if (c.speedup_ci) return {&*c.speedup_ci, "interval"};
  return {};
}

bool Drawable(double value) { return std::isfinite(value) && value > 0; }

std::string RatioChart(const RunResult& result, const WorkloadResult& workload, const std::vector<RoundRatio>& ratios,
                       const std::string& id) {
  std::string_view color = ColorOf(result, result.candidate);
  Frame frame;
  frame.top = 46;  // room for a line saying where 1.0 went when it is off the axis
  double lo = INFINITY;
  double hi = 0;
  std::vector<double> values;
  for (const auto& r : ratios) {
    lo = std::min(lo, r.ratio);
    hi = std::max(hi, r.ratio);
    values.push_back(r.ratio);
  }
  // The interval is drawn as a band; its finite ends are kept in view.
  const SpeedupInterval band = IntervalOf(workload);
  if (band.interval) {
    for (double end : {band.interval->low, band.interval->high}) {
      if (Drawable(end)) lo = std::min(lo, end), hi = std::max(hi, end);
    }
  }
  double median = stats::Median(values);
  // The axis reaches 1.0 only when that costs at most a doubling of its span: a candidate
  // eight times faster would otherwise leave its drift a flat line at the bottom.
  bool one_in_view = lo <= 1 && hi >= 1;
  if (!one_in_view && std::max(hi, 1.0) / std::min(lo, 1.0) <= 2 * std::max(hi / lo, 1.25)) {
    lo = std::min(lo, 1.0);
    hi = std::max(hi, 1.0);
    one_in_view = true;
  }
  // Ratios multiply, so a log axis shows 2x faster and 2x slower as equal distances.
  Axis y = LogAxis(lo, hi);
  y.from = frame.PlotBottom();
  y.to = frame.PlotTop();
  Axis x = LinearAxis(ratios.front().round, ratios.back().round, false);
  if (ratios.size() == 1) x = {ratios.front().round - 1.0, ratios.front().round + 1.0, false};
  x.from = frame.PlotLeft();
  x.to = frame.PlotRight();
  std::vector<double> x_ticks = Ticks(x);
  std::erase_if(x_ticks, [](double t) { return t != std::floor(t); });

  std::string title = fmt::format("Speed-up (baseline / candidate) by round: {}", Esc(workload.name));
  std::string svg = OpenChart("ratio-over-rounds", id, frame, title);
  svg += XAxis(frame, x, x_ticks, Number, "round");
  svg += YAxis(frame, y, Ticks(y), Number, "baseline / candidate (log scale)");
  if (band.interval) {
    const Interval& i = *band.interval;
    // An unbounded end runs to the edge of the plot.
    const double top = Drawable(i.high) ? y(i.high) : frame.PlotTop();
    const double bottom = Drawable(i.low) ? y(i.low) : frame.PlotBottom();
    const std::string text = fmt::format("{} {} of the median: {} to {}", units::FormatConfidence(i.level), band.kind,
                                         Drawable(i.low) ? units::FormatRatio(i.low) : "0",
                                         Drawable(i.high) ? units::FormatRatio(i.high) : "unbounded");
    svg += fmt::format(
        "<rect class=\"interval\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
        "fill-opacity=\"0.12\"><title>{}</title></rect>\n"
        "<text class=\"interval-label\" x=\"{}\" y=\"{}\" dx=\"4\">{}</text>\n",
        Px(frame.PlotLeft()), Px(top), Px(frame.PlotRight() - frame.PlotLeft()), Px(std::max(1.0, bottom - top)), color,
        text, Px(frame.PlotLeft()), Px(frame.PlotBottom() - 6), text);
  }
  if (one_in_view) {
    svg += fmt::format(
        "<line class=\"reference\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n"
        "<text x=\"{1}\" y=\"{3}\" text-anchor=\"end\">1.0 = equal</text>\n",
        Px(frame.PlotLeft()), Px(frame.PlotRight()), Px(y(1.0)), Px(y(1.0) - 4));
  } else {
    bool above = lo > 1;
    svg += fmt::format(
        "<text class=\"reference-off-scale\" x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\">1.0 = equal is {} this chart</text>\n",
        Px(frame.PlotRight()), Px(frame.PlotTop() - 8), above ? "below" : "above");
  }
  svg += fmt::format(
      "<line class=\"median\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" "
      "stroke-opacity=\"0.6\" stroke-dasharray=\"2 3\"/>\n"
      "<text x=\"{0}\" y=\"{4}\" dx=\"4\">median {5}</text>\n",
      Px(frame.PlotLeft()), Px(frame.PlotRight()), Px(y(median)), color, Px(y(median) - 4), Number(median));
  std::string points;
  for (const auto& r : ratios) points += fmt::format("{},{} ", Px(x(r.round)), Px(y(r.ratio)));
  points.pop_back();
  svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\"/>\n", points, color);
  for (const auto& r : ratios) {
    svg += fmt::format(
        "<circle class=\"sample\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>round {}: "
        "{:.3f}</title></circle>\n",
        Px(x(r.round)), Px(y(r.ratio)), color, r.round, r.ratio);
  }
  return svg + "</svg>\n";
}

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
      Series s{
          label(table, table.contenders[c]), ColorOf(result, table.contenders[c]), kDashes[t % std::size(kDashes)], {}};
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

std::string Note(std::string_view text) { return fmt::format("<p class=\"note\">{}</p>\n", text); }

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

// ---------------------------------------------------------------------------------------
// Tables and text.

std::string_view StatusClass(RowStatus status) {
  switch (status) {
    case RowStatus::kPass:
      return "pass";
    case RowStatus::kMissed:
      return "missed";
    case RowStatus::kUnresolved:
      return "unresolved";
    case RowStatus::kFailed:
      return "failed";
    case RowStatus::kNotGated:
      return "not-gated";
    case RowStatus::kNone:
      break;
  }
  return "none";
}

std::string HeadingRow(const std::vector<std::string>& headings) {
  std::string html = "<tr>";
  for (const auto& heading : headings) html += fmt::format("<th>{}</th>", Esc(heading));
  return html + "</tr>\n";
}

std::string WorkloadTable(const RunResult& result) {
  std::string html = "<table class=\"workloads\">\n";
  html += HeadingRow(ColumnHeadings(result));
  for (const auto& row : ComparisonRows(result)) {
    std::vector<std::string> cells = Cells(row);
    html += "<tr>";
    for (std::size_t c = 0; c + 1 < cells.size(); ++c) {
      html += fmt::format("<td>{}</td>", Esc(cells[c]));
    }
    html += fmt::format("<td class=\"verdict {}\">{}</td></tr>\n", StatusClass(row.status), Esc(cells.back()));
  }
  html += "</table>\n";
  if (const auto summary = SpeedupSummary(result); !summary.empty()) {
    html += fmt::format("<p class=\"speedup-summary\">Summary ({}):</p>\n<ul class=\"speedup-summary\">\n",
                        Esc(summary.front()));
    for (std::size_t i = 1; i < summary.size(); ++i) html += fmt::format("<li>{}</li>\n", Esc(summary[i]));
    html += "</ul>\n";
  }
  return html;
}

std::string FailureSection(const RunResult& result) {
  std::string html;
  if (const std::vector<std::string> notes = ReportNotes(result); !notes.empty()) {
    html += "<ul class=\"notes\">\n";
    for (const auto& line : notes) html += fmt::format("<li>{}</li>\n", Esc(line));
    html += "</ul>\n";
  }
  if (!result.verdict.lines.empty()) {
    html += "<ul class=\"failing\">\n";
    for (const auto& line : result.verdict.lines) html += fmt::format("<li>{}</li>\n", Esc(line));
    html += "</ul>\n";
  }
  std::vector<const Failure*> failures = AllFailures(result);
  if (failures.empty()) return html;
  html += "<h2 id=\"failures\">Failures</h2>\n";
  for (const Failure* failure : failures) {
    html += fmt::format("<p><strong>{}</strong> ({}): {}</p>\n", Esc(FailurePlace(*failure)),
                        FailureKindName(failure->kind), Esc(failure->message));
    if (!failure->detail.empty()) {
      html += fmt::format("<pre>{}</pre>\n", EscapeHtml(Printable(failure->detail)));
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

// What measuring the workload showed (WorkloadResult::notes, e.g. a server killed with SIGKILL),
// its statistical caveats and why it has no startup-adjusted figure, in full (the table shows
// the short form).
std::string WorkloadNotes(const WorkloadResult& workload) {
  std::vector<std::string> notes = workload.notes;
  if (workload.comparison) {
    if (!workload.comparison->logic_speedup && !workload.comparison->logic_note.empty()) {
      notes.push_back(workload.comparison->logic_note);
    }
    notes.insert(notes.end(), workload.comparison->notes.begin(), workload.comparison->notes.end());
  }
  if (notes.empty()) return "";
  std::string html = "<ul class=\"notes\">\n";
  for (const std::string& note : notes) html += fmt::format("<li>{}</li>\n", Esc(note));
  return html + "</ul>\n";
}

std::string WorkloadSection(const RunResult& result, const WorkloadResult& workload, const WorkloadRow& row,
                            IdMaker& ids) {
  std::string html = fmt::format("<section class=\"workload\" id=\"{}\">\n<h2>{}</h2>\n",
                                 ids("workload", workload.name), Esc(workload.name));
  if (!workload.description.empty()) html += fmt::format("<p>{}</p>\n", Esc(workload.description));
  html += fmt::format(
      "<p>Median {} (baseline) against {} (candidate); median per-round speed-up {}; candidate won {} rounds; "
      "verdict <span class=\"verdict {}\">{}</span>.</p>\n",
      Esc(row.baseline_median), Esc(row.candidate_median), Esc(row.speedup), Esc(row.rounds_won),
      StatusClass(row.status), Esc(row.verdict));
  std::string charts;
  std::string notes;
  std::vector<ContenderRuns> runs = RunsByContender(result, workload);
  if (runs.empty()) {
    notes += Note("No measured samples: nothing to plot.");
  } else {
    charts += BoxPlot(result, workload, runs, ids("box", workload.name));
  }
  std::vector<RoundRatio> ratios = PairedRatios(result, workload);
  if (ratios.empty()) {
    if (!runs.empty()) notes += Note("No paired rounds: no ratio to plot.");
  } else {
    charts += RatioChart(result, workload, ratios, ids("ratio", workload.name));
  }
  if (!charts.empty()) html += "<div class=\"charts\">\n" + charts + "</div>\n";
  return html + notes + WorkloadNotes(workload) + "</section>\n";
}

std::string DetailsSection(const RunResult& result) {
  const MachineInfo& m = result.machine;
  std::string html = "<h2 id=\"details\">Details</h2>\n<ul class=\"details\">\n";
  html += fmt::format("<li>engine: perfengine {}</li>\n", Esc(result.engine_version));
  html += fmt::format("<li>spec: {} (sha256 {})</li>\n", Esc(result.spec_path), Esc(result.spec_digest));
  html += fmt::format("<li>started: {}</li>\n", Esc(result.started_at));
  html += fmt::format("<li>machine: {}, {}, {}, {} cores, {}</li>\n", Esc(m.hostname), Esc(m.os), Esc(m.cpu), m.cores,
                      units::FormatKiB(m.memory_kib));
  for (const std::string& line : ShardLines(result)) html += fmt::format("<li>{}</li>\n", Esc(line));
  html += fmt::format("<li>rounds: {}</li>\n", Esc(RoundsLine(result)));
  if (!result.complete) html += "<li>results incomplete: the run stopped before its last round</li>\n";
  for (const auto& contender : result.contenders) {
    std::string_view role = contender.name == result.baseline    ? " (baseline)"
                            : contender.name == result.candidate ? " (candidate)"
                                                                 : "";
    html += fmt::format("<li>contender {}{}: {}</li>\n", Esc(contender.name), role, Esc(contender.description));
  }
  return html + "</ul>\n";
}

std::string_view SummaryClass(ExitCode exit) {
  switch (exit) {
    case ExitCode::kPass:
      return "pass";
    case ExitCode::kThresholdMissed:
      return "threshold-missed";
    case ExitCode::kRunFailed:
      return "run-failed";
    case ExitCode::kUnresolved:
      return "unresolved";
    case ExitCode::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : Printable(text)) {
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
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string HtmlReport(const RunResult& result) {
  IdMaker ids;
  std::string summary = SummaryLine(result);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n";
  html += kHead;
  html += fmt::format("<title>perfengine: {} ({})</title>\n", Esc(summary), Esc(result.spec_path));
  html += kStyle;
  html += "</head>\n<body>\n";
  html += fmt::format("<h1>perfengine: {}</h1>\n", Esc(result.spec_path));
  html += fmt::format("<p class=\"summary {}\">{}</p>\n", SummaryClass(result.verdict.exit), Esc(summary));
  html += fmt::format("<p>{}: {}.</p>\n", Esc(ContendersLine(result)), Esc(RoundsLine(result)));
  html += "<ul class=\"revisions\">\n";
  for (const std::string& line : RevisionLines(result)) html += fmt::format("<li>{}</li>\n", Esc(line));
  html += "</ul>\n";
  if (const std::string cost = PhasesLine(result); !cost.empty()) {
    html += fmt::format("<p class=\"run-time\">{}</p>\n", Esc(cost));
  }
  if (std::string busy = BusyMachineLine(result); !busy.empty()) {
    html += fmt::format("<p class=\"busy-machine\">{}</p>\n", Esc(busy));
  }
  html += WorkloadTable(result);
  html += FailureSection(result);

  std::vector<SweepSection> sections = SweepSections(result);
  for (const auto& section : sections) {
    auto sweep = std::find_if(result.sweeps.begin(), result.sweeps.end(),
                              [&](const SweepResult& s) { return s.name == section.name; });
    SweepResult named_by_points{section.name, section.axes, {}, {}, {}, {}, 0};
    html += SweepSectionHtml(result, section, sweep != result.sweeps.end() ? *sweep : named_by_points, ids);
  }

  std::vector<WorkloadRow> rows = WorkloadRows(result);
  for (std::size_t i = 0; i < result.workloads.size(); ++i) {
    html += WorkloadSection(result, result.workloads[i], rows[i], ids);
  }
  html += DetailsSection(result);
  html += "</body>\n</html>\n";
  return html;
}

void WriteHtmlReport(const RunResult& result, const std::filesystem::path& path) {
  WriteFileAtomically(path, HtmlReport(result));
}

}  // namespace pe::report
