// The family of checks a run's family-wise confidence covers (docs/statistics.md,
// "Family-wise confidence"), counted in a run's results: every check the gate evaluates that
// reads an interval, from the one threshold table (model::SequentialChecks), the noisy counter
// checks and the sweep checks. Point checks (a count, a peak) read no interval and are not in
// it. The spec counts the same family before the run (engine/spec/family.h); a run's results
// record that count in settings.family_checks, which a test holds against this one.
#pragma once

#include "engine/model/result.h"

namespace pe::gate {

// The checks of a run's results that read an interval: its gated workloads' sequential and
// noisy-counter checks, and its sweeps' interval checks on the candidate.
int FamilySize(const model::RunResult& result);

}  // namespace pe::gate
