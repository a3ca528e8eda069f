// The further candidates of a run with more than two contenders (model/pairs.h): each is judged
// against the baseline by the same threshold rows as the run's candidate, so its checks are
// ordinary checks (counted wherever checks are counted) that name it in Check::contender.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::gate {

// A workload as the gate reads it for one further candidate: the workload's name, kind,
// thresholds, counters and summaries, with that candidate's comparison against the baseline
// as its `comparison` (no samples: the gate reads only the comparison).
struct CandidateView {
  std::string contender;
  model::WorkloadResult workload;
};

// One view per gated workload and further candidate compared with the run's baseline, in
// workload order, then candidate order.
std::vector<CandidateView> FurtherCandidates(const model::RunResult& result, const model::WorkloadResult& workload);

}  // namespace pe::gate
