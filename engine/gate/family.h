// The family of checks a run's family-wise confidence covers (docs/statistics.md,
// "Family-wise confidence"): every check the gate evaluates that reads a confidence sequence,
// counted from the one threshold table (engine/model/threshold_table.h), never a list kept
// beside it. Point checks (a count, a peak) read no interval and are not in the family.
#pragma once

#include "engine/model/result.h"

namespace pe::gate {

// The sequential checks `thresholds` puts in force on one workload.
int SequentialChecks(const model::Thresholds& thresholds);

// The sequential checks of every gated workload of a run.
int FamilySize(const model::RunResult& result);

}  // namespace pe::gate
