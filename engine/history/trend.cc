#include "engine/history/trend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "engine/base/error.h"
#include "engine/base/suggest.h"
#include "engine/model/threshold_table.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"
#include "stats/change_points.h"
#include "stats/descriptive.h"

namespace pe::history {

namespace {

std::string Value(const std::string& figure, double v) {
  const auto ends_with = [&](std::string_view suffix) {
    return figure.size() >= suffix.size() && figure.compare(figure.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_s")) return units::FormatSeconds(v);
  if (ends_with("_kib")) return units::FormatKiB(std::llround(v));
  if (ends_with("win_rate")) return units::FormatPercent(v);
  // Three decimals: a trend is read for small steps between runs, which two would hide.
  if (ends_with("speedup") || ends_with("_ratio")) return units::FormatRatio(v, 3);
  return units::FormatFixed(v, 0);
}

double MedianOf(const std::vector<Point>& points, size_t begin, size_t end) {
  std::vector<double> v;
  for (size_t i = begin; i < end; ++i) v.push_back(points[i].value);
  return stats::Median(v);
}

}  // namespace

FigureInfo DescribeFigure(const std::string& figure) {
  // The comparison's figures, each with the check that reads it (engine/model/threshold_table.h).
  for (const model::FigureRow& row : model::kFigureRows) {
    if (figure == row.name) return {std::string(row.meaning), row.higher_is_better};
  }
  // One contender's own figure: a time, a size or a count, where more is worse.
  const std::size_t dot = figure.find('.');
  const std::string contender = dot == std::string::npos ? "" : figure.substr(0, dot);
  const std::string what = dot == std::string::npos ? figure : figure.substr(dot + 1);
  return {fmt::format("{} of '{}' alone (descriptive: no check reads one contender's figure)", what, contender), false};
}

std::vector<std::string> ChosenFigures(const WorkloadSeries& series, const TrendOptions& options) {
  if (!options.figure.empty()) return {options.figure};
  const auto checked = [&](std::string_view key) {
    return std::any_of(series.checked.begin(), series.checked.end(), [&](const auto& c) { return c.first == key; });
  };
  std::vector<std::string> figures;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    const std::string figure(model::FigureOf(row)->name);
    if (checked(row.key) && std::find(figures.begin(), figures.end(), figure) == figures.end()) {
      figures.push_back(figure);
    }
  }
  if (!figures.empty()) return figures;
  const bool paired = std::any_of(series.figures.begin(), series.figures.end(),
                                  [](const auto& f) { return f.first == "median_round_speedup"; });
  return {paired ? "median_round_speedup" : "speedup"};
}

std::string GateLine(const WorkloadSeries& series, const std::string& figure) {
  std::vector<std::string> by;
  for (const auto& [key, runs] : series.checked) {
    const model::ThresholdRow* row = model::FindThresholdRow(key);
    if (row != nullptr && model::FigureOf(*row)->name == figure) {
      by.push_back(fmt::format("{} checked it in {} of {}", key, runs, units::FormatCount(series.runs, "run")));
    }
  }
  if (!by.empty()) return fmt::format("gated: {}", fmt::join(by, ", "));
  return series.checked.empty() ? "not gated: no recorded run checked a threshold on this workload"
                                : "not gated: no recorded run checked a threshold that reads it";
}

std::vector<std::size_t> SeriesChangePoints(const WorkloadSeries& series, const TrendOptions& options,
                                            const std::vector<double>& values) {
  if (series.startup && !options.startup_change_points) return {};
  return TrendChangePoints(values);
}

std::vector<std::size_t> TrendChangePoints(const std::vector<double>& values) {
  const bool positive = std::all_of(values.begin(), values.end(), [](double v) { return v > 0; });
  std::vector<double> x;
  for (double v : values) x.push_back(positive ? std::log(v) : v);
  std::vector<std::size_t> out;
  // Sigma from the raw values: the smoothed ones repeat, and would make every wobble a step.
  const double penalty = stats::ChangePointPenalty(x);
  for (const stats::ChangePoint& p : stats::ChangePoints(stats::RunningMedian3(x), kMinRunsPerSegment, penalty)) {
    out.push_back(p.index);
  }
  return out;
}

namespace {

// One workload's section for one figure; `also` is one more line under its heading.
std::string FigureSection(const WorkloadSeries& s, const std::string& figure, const TrendOptions& options,
                          const std::string& also) {
  std::string out;
  const auto found = std::find_if(s.figures.begin(), s.figures.end(), [&](const auto& f) { return f.first == figure; });
  if (found == s.figures.end()) {
    std::vector<std::string> recorded;
    for (const auto& f : s.figures) recorded.push_back(f.first);
    return fmt::format("{}: no {} recorded (recorded: {})\n{}\n", s.workload, figure, fmt::join(recorded, ", "), also);
  }
  const std::vector<Point>& points = found->second;
  out += fmt::format("{}: {} over {}\n", s.workload, figure,
                     units::FormatCount(static_cast<long long>(points.size()), "run"));
  const FigureInfo info = DescribeFigure(figure);
  out += fmt::format("  figure: {}; higher is {}\n", info.description, info.higher_is_better ? "better" : "worse");
  out += fmt::format("  {}\n{}", GateLine(s, figure), also);
  std::vector<double> values;
  report::TableRows rows;  // run, started, commit, host, value, note: columns as wide as their cells
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    values.push_back(p.value);
    const bool changed = i > 0 && p.spec_digest != points[i - 1].spec_digest;
    rows.push_back({std::to_string(i + 1), p.started_at, p.commit.empty() ? "-" : p.commit.substr(0, 12), p.hostname,
                    Value(figure, p.value), changed ? "(spec changed)" : ""});
  }
  out += report::FormatTable(rows, "rlllrl", "  ");
  const std::vector<std::size_t> changes = SeriesChangePoints(s, options, values);
  size_t begin = 0;
  for (size_t c = 0; c < changes.size(); ++c) {
    const size_t at = changes[c];
    const size_t end = c + 1 < changes.size() ? changes[c + 1] : points.size();
    const double before = MedianOf(points, begin, at), after = MedianOf(points, at, end);
    const bool better = info.higher_is_better ? after > before : after < before;
    out += fmt::format("  change point at run {} ({}, commit {}): median {} -> {} ({}, {})\n", at + 1,
                       points[at].started_at, points[at].commit.empty() ? "-" : points[at].commit.substr(0, 12),
                       Value(figure, before), Value(figure, after), units::FormatSignedPercent(after / before - 1, 1),
                       after == before ? "level"
                       : better        ? "better"
                                       : "worse");
    begin = at;
  }
  if (s.startup && !options.startup_change_points) {
    out +=
        "  change points not sought: start-up time follows the machine more than the code "
        "(--startup-change-points seeks them)\n";
  } else if (points.size() < kMinRunsForChangePoint) {
    out += fmt::format("  no change point sought: {} recorded, and a change point needs at least {} ({} either side)\n",
                       units::FormatCount(static_cast<long long>(points.size()), "run"), kMinRunsForChangePoint,
                       kMinRunsPerSegment);
  } else if (changes.empty()) {
    out += "  no change point\n";
  }
  out += "\n";
  return out;
}

}  // namespace

std::string TrendText(const std::vector<WorkloadSeries>& series, const TrendOptions& options) {
  std::vector<std::string> names;
  for (const WorkloadSeries& s : series) names.push_back(s.workload);
  for (const std::string& w : options.workloads) {
    if (std::find(names.begin(), names.end(), w) == names.end()) {
      throw base::UsageError(fmt::format("--workload: no run recorded '{}'{}", w, base::DidYouMean(w, names)));
    }
  }
  // A figure no run recorded is a typo or a figure this spec never measures: refused, not a
  // "no ... recorded" line per workload and exit 0.
  std::vector<std::string> figures;
  for (const WorkloadSeries& s : series) {
    for (const auto& f : s.figures) {
      if (std::find(figures.begin(), figures.end(), f.first) == figures.end()) figures.push_back(f.first);
    }
  }
  if (!options.figure.empty() && std::find(figures.begin(), figures.end(), options.figure) == figures.end()) {
    throw base::UsageError(fmt::format("--figure: no run recorded '{}'{}; recorded: {}", options.figure,
                                       base::DidYouMean(options.figure, figures), fmt::join(figures, ", ")));
  }
  // Said once, above the sections: which figures are shown and why.
  std::string out = options.figure.empty()
                        ? "figures: by default those the recorded runs' gates checked on each workload, else the "
                          "speed-up (--figure traces another)\n\n"
                        : "";
  for (const WorkloadSeries& s : series) {
    if (!options.workloads.empty() &&
        std::find(options.workloads.begin(), options.workloads.end(), s.workload) == options.workloads.end()) {
      continue;
    }
    // A check the history has no figure for (a counter's): named, so the sections below are
    // not read as everything the gate checked.
    std::vector<std::string> untraced;
    for (const auto& [key, runs] : s.checked) {
      if (model::FindThresholdRow(key) == nullptr) {
        untraced.push_back(fmt::format("{} ({} of {})", key, runs, units::FormatCount(s.runs, "run")));
      }
    }
    std::string also =
        untraced.empty() ? "" : fmt::format("  also gated, no trend recorded: {}\n", fmt::join(untraced, ", "));
    for (const std::string& figure : ChosenFigures(s, options)) {
      out += FigureSection(s, figure, options, also);
      also.clear();  // under the first section only
    }
  }
  return out;
}

}  // namespace pe::history
