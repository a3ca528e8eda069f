// `perfengine explain`: one results file, its working shown. For each workload: the
// per-round table, summary statistics, outliers, the startup subtraction, the bootstrap
// interval, the sign test, Wilcoxon and Hodges-Lehmann, the thresholds with their margins,
// the rounds that would resolve the difference, and whether the file's stored figures match
// the recomputed ones. The verdict, checks and sequences shown are judged again from the
// samples (rejudge.h), never read from the file. docs/explain.md describes each section.
//
// Deterministic: everything comes from the file (the bootstrap from its recorded seed), so
// the same file always gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::explain {

// `file` is how the header names the results file (the path as the user gave it).
std::string ExplainText(const model::RunResult& result, const std::string& file,
                        const std::vector<const model::WorkloadResult*>& workloads);

// The margin by which a check cleared (positive) or missed (negative) its bar, in the
// terms of gate::CheckLine: "+25%" for ratios, "+10 points" for win rates; "" when skipped.
std::string Margin(const model::Check& check);

}  // namespace pe::explain
