// The two lines about confidence every report shows, formatted once for every reporter and
// `explain` (docs/statistics.md): the family line (the whole verdict's confidence, the checks it
// is split across and each check's level, overrides named) and each check's power line ("would
// have shown a regression of X% or more with 80% power in these N rounds", from
// model::Check::detectable and noise, which the gate computes with stats/detectable.h).
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// "confidence: 95% for the whole verdict, split across 19 checks that read an interval: each at
// 99.74% (union bound)", with any per_check_confidence override named; "" for a results file from
// before the split or a run with no such check.
std::string FamilyLine(const model::RunResult& result);

// What a check could have seen, one helper for every report and `explain`:
//   "w: paired CPU-time ratio: would have shown a regression of 3.4% or more with 80% power at
//   99.74% confidence in these 12 rounds" (max_slowdown, noisy counters; a speed-up claim left
//   unresolved: "unresolved; would have shown a speed-up of 1.07x or more ...");
//   min_win_rate left unresolved: "... would have shown a win rate above 60% for a speed-up of
//   1.07x or more ..."; a sweep check: "... would have shown a miss at an exponent of 2.61 or
//   more ..." (passed) or "unresolved; would have shown it met at an exponent of 1.40 or less".
// When the figure is beyond anything meaningful (a doubling beyond the bar, not finite) or no
// shift of any size could have been shown in these rounds, it says so plainly instead:
//   "w: paired CPU-time ratio: could not have shown a regression of any size in these 8 rounds
//   at 99.74% confidence (a unanimous series first resolves after 12 rounds; noise 41% per
//   round; about 310 rounds would show a regression of 6.0%)".
// "" for a check without the figure (a point check, a failed check, an older results file).
std::string PowerLine(const model::Check& check);

// What a report lists under its notes: the family line, the power lines in check order, the
// verdict's own notes, then what measuring each workload showed (WorkloadResult::notes; a serve
// workload's are in ServeLines).
std::vector<std::string> ReportNotes(const model::RunResult& result);

}  // namespace pe::report
