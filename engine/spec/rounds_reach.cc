#include "engine/spec/rounds_reach.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "engine/model/threshold_table.h"
#include "engine/units/units.h"
#include "stats/sequential.h"

namespace pe::spec {

using model::Thresholds;

std::optional<RoundsShortfall> FindRoundsShortfall(const Thresholds& t, int reach) {
  const double level = t.confidence;
  // Every check that reads a confidence sequence (model/threshold_table.h), so a sequential
  // threshold added to the table is checked here too. A ratio's sequence rests on the sign
  // test, whose null is an even split; a rate's (the win rate) must exclude its own bar, so
  // it is checked after the ratios, with its own messages.
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (row.sequence == nullptr || row.unit == model::Check::Unit::kRate || !(t.*row.bar)) continue;
    const std::optional<int> needed = stats::MinTrialsToExclude(0.5, level);
    if (!needed || *needed <= reach) continue;
    return RoundsShortfall{std::string(row.key), *needed,
                           fmt::format("{} at {} confidence needs at least {} rounds to be resolved either way, "
                                       "and this run takes at most {}; raise [run] rounds or set [run] max_rounds",
                                       row.key, units::FormatConfidence(level), *needed, reach)};
  }
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    if (row.sequence == nullptr || row.unit != model::Check::Unit::kRate || !(t.*row.bar)) continue;
    const double bar = *(t.*row.bar);
    const std::optional<int> needed = stats::MinTrialsToExclude(bar, level);
    if (!needed) {
      return RoundsShortfall{std::string(row.key), 0,
                             fmt::format("{} = {:g} can never be shown, however many rounds: a win rate "
                                         "passes when its {} confidence sequence lies above the bar; use a bar "
                                         "below 1, e.g. 0.5 (the candidate wins more rounds than it loses)",
                                         row.key, bar, units::FormatConfidence(level))};
    }
    if (*needed > reach) {
      return RoundsShortfall{std::string(row.key), *needed,
                             fmt::format("{} = {:g} at {} confidence needs at least {} rounds to be "
                                         "shown, and this run takes at most {}; raise [run] rounds or set [run] "
                                         "max_rounds",
                                         row.key, bar, units::FormatConfidence(level), *needed, reach)};
    }
  }
  return std::nullopt;
}

}  // namespace pe::spec
