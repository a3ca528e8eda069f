#include "engine/spec/rounds_reach.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "stats/sequential.h"

namespace pe::spec {

using model::Thresholds;

std::optional<RoundsShortfall> FindRoundsShortfall(const Thresholds& t, int reach) {
  const double level = t.confidence;
  const std::vector<std::pair<const char*, std::optional<int>>> needs = {
      {"min_speedup", t.min_speedup ? stats::MinTrialsToExclude(0.5, level) : std::nullopt},
      {"min_speedup_ci", t.min_speedup_ci ? stats::MinTrialsToExclude(0.5, level) : std::nullopt},
      {"max_slowdown", t.max_slowdown ? stats::MinTrialsToExclude(0.5, level) : std::nullopt},
      {"min_logic_speedup", t.min_logic_speedup ? stats::MinTrialsToExclude(0.5, level) : std::nullopt},
  };
  for (const auto& [key, needed] : needs) {
    if (!needed || *needed <= reach) continue;
    return RoundsShortfall{key, *needed,
                           fmt::format("{} at {:g}% confidence needs at least {} rounds to be resolved either way, "
                                       "and this run takes at most {}; raise [run] rounds or set [run] max_rounds",
                                       key, 100 * level, *needed, reach)};
  }
  if (t.min_win_rate) {
    const std::optional<int> needed = stats::MinTrialsToExclude(*t.min_win_rate, level);
    if (!needed) {
      return RoundsShortfall{"min_win_rate", 0,
                             fmt::format("min_win_rate = {:g} can never be shown, however many rounds: a win rate "
                                         "passes when its {:g}% confidence sequence lies above the bar; use a bar "
                                         "below 1, e.g. 0.5 (the candidate wins more rounds than it loses)",
                                         *t.min_win_rate, 100 * level)};
    }
    if (*needed > reach) {
      return RoundsShortfall{"min_win_rate", *needed,
                             fmt::format("min_win_rate = {:g} at {:g}% confidence needs at least {} rounds to be "
                                         "shown, and this run takes at most {}; raise [run] rounds or set [run] "
                                         "max_rounds",
                                         *t.min_win_rate, 100 * level, *needed, reach)};
    }
  }
  return std::nullopt;
}

}  // namespace pe::spec
