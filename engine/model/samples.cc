#include "engine/model/samples.h"

#include <map>

namespace pe::model {

const ContenderSummary* SummaryOf(const WorkloadResult& workload, std::string_view contender) {
  for (const ContenderSummary& s : workload.summaries) {
    if (s.contender == contender) return &s;
  }
  return nullptr;
}

PairedRounds Paired(const RunResult& result, const WorkloadResult& workload) {
  std::map<int, double> baseline, candidate;
  for (const Sample& s : workload.samples) {
    if (!Measured(s)) continue;
    if (s.contender == result.baseline) baseline[s.round] = s.wall_s;
    if (s.contender == result.candidate) candidate[s.round] = s.wall_s;
  }
  PairedRounds out;
  for (const auto& [round, wall] : baseline) {
    auto other = candidate.find(round);
    if (other == candidate.end()) continue;
    out.rounds.push_back(round);
    out.baseline.push_back(wall);
    out.candidate.push_back(other->second);
  }
  return out;
}

}  // namespace pe::model
