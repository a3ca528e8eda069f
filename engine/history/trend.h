// `perfengine history SPEC`: each workload's trend over the recorded runs, with the change
// points stats/change_points.h finds in it.
#pragma once

#include <string>
#include <vector>

#include "engine/history/store.h"

namespace pe::history {

struct TrendOptions {
  std::vector<std::string> workloads;  // empty: every workload
  std::string figure = "speedup";      // a comparison figure, or CONTENDER.figure
};

// One section per workload: a line per run (start, commit, host, value; "spec changed" where
// the spec's digest differs from the run before) and a line per change point with the median
// either side. Change points are found on log values (ratios and times shift by factors)
// after Tukey's running median of 3 (the penalty's sigma from the unsmoothed values), with
// segments of at least 2 runs. Throws
// base::UsageError for a --workload that was never recorded (with a suggestion).
std::string TrendText(const std::vector<WorkloadSeries>& series, const TrendOptions& options);

// The positions where the level of `values` shifts, as TrendText finds them.
std::vector<std::size_t> TrendChangePoints(const std::vector<double>& values);

}  // namespace pe::history
