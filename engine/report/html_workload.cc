// The HTML report's workload sections: each contender's time distribution (a box plot with
// every run) and the paired speed-up round by round, under the workload's figures and notes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "engine/model/samples.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_page.h"
#include "engine/report/svg_chart.h"
#include "engine/report/text.h"
#include "engine/units/units.h"
#include "stats/descriptive.h"

namespace pe::report::html {

using model::Comparison;
using model::Interval;
using model::Measured;
using model::Paired;
using model::PairedRounds;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;
namespace {

using namespace svg;  // NOLINT: the chart vocabulary (Axis, Frame, Ticks) reads best unqualified here

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

}  // namespace

std::string WorkloadSection(const RunResult& result, const WorkloadResult& workload, const WorkloadRow& row,
                            IdMaker& ids) {
  std::string html = fmt::format("<section class=\"workload\" id=\"{}\">\n<h2>{}</h2>\n",
                                 ids("workload", workload.name), Esc(workload.name));
  if (!workload.description.empty()) html += fmt::format("<p>{}</p>\n", Esc(workload.description));
  html += fmt::format(
      "<p>Median {} (baseline) against {} (candidate) over {} paired rounds; verdict <span class=\"verdict {}\">{}"
      "</span>.</p>\n",
      Esc(row.baseline_median), Esc(row.candidate_median), Esc(row.rounds), StatusClass(row.status), Esc(row.verdict));
  // The same figures as the table's lines (gated_figures.h), each with its check's verdict.
  if (!row.figures.empty()) {
    html += "<ul class=\"checks\">\n";
    for (const GatedFigure& f : row.figures) {
      html += fmt::format("<li>{} <span class=\"verdict {}\">{}</span></li>\n",
                          Esc(f.bar.empty() ? fmt::format("{} {}:", f.check, f.figure)
                                            : fmt::format("{} {}, {}:", f.check, f.figure, f.bar)),
                          StatusClass(f.status), Esc(f.verdict));
    }
    html += "</ul>\n";
  }
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

}  // namespace pe::report::html
