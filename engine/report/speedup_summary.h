// The summary in hyperfine's style that every human-readable report prints when a run has more
// than two contenders: "compress: lz4 ran 5.77x [5.10x, 6.31x] faster than gzip, 2.51x [2.40x,
// 2.63x] than zstd". Each figure is the median per-round speed-up with its confidence
// sequence, the figure min_speedup reads (docs/report.md, "More than two contenders").
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// Empty when the run has one candidate (its table row already says it). Otherwise the label
// first ("median per-round speed-up [95% confidence sequence], the figure min_speedup reads"),
// then one line per workload with measured comparisons, the startup workload left out.
//
// The fastest contender (by median wall time) leads when the run compared it with every other
// ([run] compare = "all-pairs", or when it is the baseline); otherwise each candidate is set
// against the baseline, the faster of the two leading each clause.
std::vector<std::string> SpeedupSummary(const model::RunResult& result);

}  // namespace pe::report
