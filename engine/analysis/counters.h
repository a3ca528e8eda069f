// Counters a contender reports itself (docs/counters.md), compared candidate against baseline.
#pragma once

#include "engine/model/result.h"

namespace pe::analysis {

// Fills c.counters, one per counter of `w`, from the measured samples of the pair `c` names
// (the run's baseline and candidate when it names none). An exact counter gets `ratio`, the candidate's median over the
// baseline's (and a note when its values varied between rounds, which an exact count should not); a noisy one gets
// `ratio_cs`, the confidence sequence for the median per-round ratio (as CPU time does), and the rounds that would
// resolve its bar when it is open.
void CompareCounters(const model::RunResult& result, const model::WorkloadResult& w, model::Comparison& c);

}  // namespace pe::analysis
