// [run] final_look (docs/statistics.md, "A final look"): the analysis builds max_slowdown's
// interval from it, the gate and calibrate say what that interval could have seen. Declared once
// here for all three.
#pragma once

#include <algorithm>
#include <string_view>

#include "engine/model/result.h"

namespace pe::model {

// The level of each half of a final look's check at `check_level`: 1 - (1 - check_level) / 2.
// The CPU-time sequence runs at it every round, the Hodges-Lehmann interval at the final round.
inline double FinalLookLevel(double check_level) { return 1 - (1 - check_level) / 2; }

// The round of the final look a run's settings ask for: max_rounds, or rounds where max_rounds
// is not above it; 0 without [run] final_look.
inline int FinalLookRound(const Settings& settings) {
  if (!settings.final_look) return 0;
  return std::max(settings.rounds, settings.max_rounds);
}

// In the method of an interval that came from a final look (engine/analysis/sequences.cc), so a
// check line can name what it read: not a confidence sequence alone.
inline constexpr std::string_view kFinalLookMark = "intersected at the final look";

inline bool FromFinalLook(const Interval& interval) {
  return interval.method.find(kFinalLookMark) != std::string::npos;
}

}  // namespace pe::model
