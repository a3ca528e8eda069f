// The two lines about confidence every report shows, formatted once for every reporter and
// `explain` (docs/statistics.md): the family line (the whole verdict's confidence, the checks it
// is split across and each check's level, overrides named) and each check's power line ("would
// have shown a regression of X% or more with 80% power in these N rounds", from
// model::Check::detectable, which the gate computes with stats/detectable.h).
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// "confidence: 95% for the whole verdict, split across 19 checks that read an interval: each at
// 99.74% (union bound)", with any per_check_confidence override named; "" for a results file from
// before the split or a run with no such check.
std::string FamilyLine(const model::RunResult& result);

// "w: paired CPU-time ratio: would have shown a regression of 3.4% or more with 80% power at
// 99.74% confidence in these 12 rounds"; "" for a check without the figure.
std::string PowerLine(const model::Check& check);

// What a report lists under its notes: the family line, the power lines in check order, then
// the verdict's own notes.
std::vector<std::string> ReportNotes(const model::RunResult& result);

}  // namespace pe::report
