// The one rule for a ratio of two counts, candidate over baseline, wherever an exact count is
// judged or shown: a counter declared exact (docs/counters.md), instruction and allocation
// counts (max_instructions_ratio, max_allocations_ratio) in the gate, in compare, in the results
// file and so in history and every report. A count that stayed 0 did not change (1); a count that
// grew from 0 grew by more than any ratio bar allows (+infinity, which the gate's line prints as
// "unbounded" with both counts: "0 to 5").
#pragma once

#include <limits>

namespace pe::model {

inline double CountRatio(double baseline, double candidate) {
  if (baseline > 0) return candidate / baseline;
  return candidate > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

// True when `ratio` (CountRatio's) is growth from 0, which no ratio can bound.
inline bool GrewFromZero(double ratio) { return ratio == std::numeric_limits<double>::infinity(); }

}  // namespace pe::model
