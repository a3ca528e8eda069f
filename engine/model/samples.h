// Reading the samples and summaries of a result the one way every module reads them: which
// samples are measured, a contender's summary, and the rounds both contenders completed.
#pragma once

#include <string_view>
#include <vector>

#include "engine/model/result.h"

namespace pe::model {

// A measured sample: warm-ups are never analysed and RSS-only runs are never timed.
inline bool Measured(const Sample& sample) { return !sample.warmup && !sample.rss_only; }

// The contender's summary in the workload, or nullptr.
const ContenderSummary* SummaryOf(const WorkloadResult& workload, std::string_view contender);

// Measured wall times of the rounds both the baseline and the candidate completed, in round
// order. A contender's later sample of the same round replaces an earlier one, as in
// engine/analysis.
struct PairedRounds {
  std::vector<int> rounds;
  std::vector<double> baseline;
  std::vector<double> candidate;
};
PairedRounds Paired(const RunResult& result, const WorkloadResult& workload);

}  // namespace pe::model
