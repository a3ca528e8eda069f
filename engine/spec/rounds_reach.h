// Whether a spec's rounds can ever resolve its interval checks. A confidence sequence
// needs a few unanimous rounds before it can exclude anything (7 at 95%, 10 at 99%: see
// stats/sequential.h); a check given fewer could only ever be unresolved, which would
// fail every speed-up claim and pass every regression whatever was measured.
#pragma once

#include <optional>
#include <string>

#include "engine/model/result.h"

namespace pe::spec {

struct RoundsShortfall {
  std::string threshold;  // the spec key, e.g. "max_slowdown"
  int needed = 0;         // fewest rounds that can resolve it; 0 when none can
  std::string message;    // what is wrong and what to do
};

// The first threshold of `t` whose check `reach` rounds (the most the run may take:
// max(rounds, max_rounds)) cannot resolve, or nullopt when all can.
std::optional<RoundsShortfall> FindRoundsShortfall(const model::Thresholds& t, int reach);

}  // namespace pe::spec
