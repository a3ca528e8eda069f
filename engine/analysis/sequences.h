// Confidence sequences for the figures the interval checks read (stats/sequential.h),
// and how many rounds would resolve each check still open.
#pragma once

#include <vector>

#include "engine/model/result.h"

namespace pe::analysis {

struct PairedSeries {
  std::vector<double> baseline, candidate;  // the same rounds, in round order
};

// Fills c.speedup_cs, cpu_ratio_cs, win_rate_cs and logic_speedup_cs (where c.logic_speedup
// is set and `logic`, each round's wall time less the same round's start-up, is not empty),
// and the rounds needed for each threshold of `t` they leave unresolved.
void AddSequences(const PairedSeries& wall, const PairedSeries& cpu, const PairedSeries& logic,
                  const model::Thresholds& t, model::Comparison& c);

// The fewest rounds at which a check at `confidence` can resolve at all (a unanimous
// series): 7 at 95%, 10 at 99%. validate rejects specs whose rounds cannot reach it.
int MinRoundsToResolve(double confidence);

}  // namespace pe::analysis
