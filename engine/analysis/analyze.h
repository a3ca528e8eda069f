// From raw samples to figures: per-contender summaries and candidate-against-baseline
// comparisons, written into the result model for the gate and the reporters.
#pragma once

#include <functional>

#include "engine/model/result.h"

namespace pe::analysis {

struct AnalyzeOptions {
  // Bootstrap intervals and tests; the run loop leaves them out when it only asks which
  // checks are still unresolved between rounds.
  bool intervals = true;
  // Polled inside the bootstraps (e.g. "Ctrl-C arrived"): once it says true the remaining
  // intervals are skipped with a note, so the analysis ends promptly.
  std::function<bool()> cancelled;
};

// Fills summaries and comparison of every workload that has measured samples.
// Warm-up samples are ignored; rss_only samples count for peak RSS only.
void Analyze(model::RunResult& result, const AnalyzeOptions& options = {});

// Startup-adjusted time is judged meaningful only above this floor: three times the start-up
// noise (1.4826 x MAD of the start-up samples, a robust sigma) or 5% of the workload's
// median, whichever is larger. Below it the subtraction is mostly noise.
double LogicFloor(double workload_median_s, double startup_noise_s);

}  // namespace pe::analysis
