// `perfengine history SPEC`: each workload's trend over the recorded runs, with the change
// points stats/change_points.h finds in it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/history/store.h"

namespace pe::history {

struct TrendOptions {
  std::vector<std::string> workloads;  // empty: every workload
  // A comparison figure, or CONTENDER.figure; empty: for each workload, the figures its
  // recorded runs' gates checked (each threshold's figure, engine/model/threshold_table.h), or,
  // where no run gated it, the one min_speedup would read (median_round_speedup; speedup where
  // no run recorded that).
  std::string figure;
  // Change points on the startup workload too: its time follows the machine (a new runner
  // image, a kernel) more than the code, so by default they are not sought there.
  bool startup_change_points = false;
};

// What a figure is, which check reads it and which way is better: one line under each
// workload's heading and the y axis of its chart.
struct FigureInfo {
  std::string description;  // "median per-round speed-up, baseline / candidate wall time: what min_speedup reads"
  bool higher_is_better = false;
};
FigureInfo DescribeFigure(const std::string& figure);

// A change point splits the runs into segments of at least this many runs, so a single
// outlying run is never a level of its own: fewer than twice as many runs have none.
inline constexpr std::size_t kMinRunsPerSegment = 2;
inline constexpr std::size_t kMinRunsForChangePoint = 2 * kMinRunsPerSegment;

// The figures TrendText traces for one workload: options.figure, or by default each figure a
// threshold the recorded runs checked on it reads (in the threshold table's order), or the
// speed-up where none did.
std::vector<std::string> ChosenFigures(const WorkloadSeries& series, const TrendOptions& options);

// The thresholds that read `figure` and how many of the series' runs checked each:
// "max_slowdown checked it in 9 of 9 runs", or that no recorded run's gate did.
std::string GateLine(const WorkloadSeries& series, const std::string& figure);

// The change points TrendText reports for one series: none on the startup workload unless
// options.startup_change_points.
std::vector<std::size_t> SeriesChangePoints(const WorkloadSeries& series, const TrendOptions& options,
                                            const std::vector<double>& values);

// One section per workload and chosen figure: the figure's description and direction, which
// recorded checks read it (GateLine), a line per run (start, commit, host, value; "spec changed"
// where the spec's digest differs from the run before) and a line per change point with the
// median either side and whether it is better or worse, or why there is none (too few runs:
// kMinRunsForChangePoint). Change points are found on
// log values (ratios and times shift by factors) after Tukey's running median of 3 (the penalty's sigma from the
// unsmoothed values), with segments of at least 2 runs. Throws base::UsageError for a --workload that was never
// recorded (with a suggestion).
std::string TrendText(const std::vector<WorkloadSeries>& series, const TrendOptions& options);

// The positions where the level of `values` shifts, as TrendText finds them.
std::vector<std::size_t> TrendChangePoints(const std::vector<double>& values);

}  // namespace pe::history
