#include "engine/model/pairs.h"

namespace pe::model {

std::vector<std::string> Candidates(const RunResult& result) {
  std::vector<std::string> out;
  if (!result.candidate.empty()) out.push_back(result.candidate);
  for (const ContenderInfo& c : result.contenders) {
    if (c.name != result.baseline && c.name != result.candidate) out.push_back(c.name);
  }
  return out;
}

bool SeveralCandidates(const RunResult& result) { return Candidates(result).size() > 1; }

std::vector<std::pair<std::string, std::string>> ComparedPairs(const RunResult& result) {
  std::vector<std::pair<std::string, std::string>> pairs;
  const std::vector<std::string> candidates = Candidates(result);
  for (const std::string& c : candidates) pairs.emplace_back(result.baseline, c);
  if (result.settings.compare == "all-pairs") {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      for (std::size_t j = i + 1; j < candidates.size(); ++j) pairs.emplace_back(candidates[i], candidates[j]);
    }
  }
  return pairs;
}

std::vector<const Comparison*> ComparisonsOf(const WorkloadResult& workload) {
  std::vector<const Comparison*> out;
  if (workload.comparison) out.push_back(&*workload.comparison);
  for (const Comparison& c : workload.other_comparisons) out.push_back(&c);
  return out;
}

const Comparison* FindComparison(const WorkloadResult& workload, std::string_view baseline,
                                 std::string_view candidate) {
  for (const Comparison* c : ComparisonsOf(workload)) {
    if (c->baseline == baseline && c->candidate == candidate) return c;
  }
  return nullptr;
}

std::string CandidateOf(const RunResult& result, const Comparison& comparison) {
  return comparison.candidate.empty() ? result.candidate : comparison.candidate;
}

std::string BaselineOf(const RunResult& result, const Comparison& comparison) {
  return comparison.baseline.empty() ? result.baseline : comparison.baseline;
}

}  // namespace pe::model
