// "Where the extra time went": the functions whose self cost grew most between two profiles
// of the same workload, baseline against candidate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/measure/profile.h"

namespace pe::measure {

struct FunctionDelta {
  std::string function;
  std::uint64_t base_cost = 0;  // 0 when the function is new in the candidate
  std::uint64_t cand_cost = 0;
  std::int64_t cost_delta = 0;  // cand_cost - base_cost
  double base_share = 0;
  double cand_share = 0;
  double share_delta = 0;  // cand_share - base_share
};

// Functions whose self cost grew, largest absolute growth first (ties: larger share growth,
// then name), at most `top` of them. Functions that shrank or vanished are not listed.
std::vector<FunctionDelta> WhereTheTimeWent(const std::vector<FunctionCost>& base,
                                            const std::vector<FunctionCost>& cand, int top);

// A small table, one line per function, e.g.
//   function        baseline   candidate      change  share
//   ParseRecords   1,200,000   3,600,000  +2,400,000  40.0% -> 66.7%
// or a single line saying no function grew.
std::string FormatWhereTheTimeWent(const std::vector<FunctionDelta>& deltas);

}  // namespace pe::measure
