#include "engine/gate/candidates.h"

namespace pe::gate {

std::vector<CandidateView> FurtherCandidates(const model::RunResult& result, const model::WorkloadResult& workload) {
  std::vector<CandidateView> views;
  if (!workload.gate) return views;
  for (const model::Comparison& c : workload.other_comparisons) {
    if (c.baseline != result.baseline || c.candidate == result.candidate) continue;  // all-pairs: reported only
    CandidateView view;
    view.contender = c.candidate;
    view.workload.name = workload.name;
    view.workload.kind = workload.kind;
    view.workload.gate = workload.gate;
    view.workload.startup = workload.startup;
    view.workload.thresholds = workload.thresholds;
    view.workload.counters = workload.counters;
    view.workload.summaries = workload.summaries;
    view.workload.comparison = c;
    views.push_back(std::move(view));
  }
  return views;
}

}  // namespace pe::gate
