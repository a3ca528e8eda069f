// Which contenders a run compares with which (docs/spec.md, "More than two contenders"): every
// contender other than the baseline is a candidate judged against the baseline; with
// [run] compare = "all-pairs" every pair of those candidates is compared too (reported, not
// gated). Analysis, the gate and every reporter read the pairs from here.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/model/result.h"

namespace pe::model {

// The contenders judged against the baseline: the run's candidate first, then the others in
// spec order.
std::vector<std::string> Candidates(const RunResult& result);

// True when the run judges more than one candidate (three or more contenders).
bool SeveralCandidates(const RunResult& result);

// The pairs compared, as (baseline, candidate): each candidate against the baseline, in
// Candidates' order, then with compare = "all-pairs" each pair of candidates in that order.
std::vector<std::pair<std::string, std::string>> ComparedPairs(const RunResult& result);

// Every comparison of a workload: `comparison` first (when present), then the others.
std::vector<const Comparison*> ComparisonsOf(const WorkloadResult& workload);

// The comparison of `candidate` against `baseline` as stored, or nullptr.
const Comparison* FindComparison(const WorkloadResult& workload, std::string_view baseline, std::string_view candidate);

// The contender a comparison's candidate is, where an older results file left the names out:
// the run's own roles for the run's comparison.
std::string CandidateOf(const RunResult& result, const Comparison& comparison);
std::string BaselineOf(const RunResult& result, const Comparison& comparison);

}  // namespace pe::model
