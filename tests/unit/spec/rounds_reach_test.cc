// FindRoundsShortfall reads the threshold table: every check that reads a confidence sequence
// is checked for rounds enough to resolve it, and no point check is, so a sequential threshold
// added to model/threshold_table.h reaches it without a hand-kept list.
#include "engine/spec/rounds_reach.h"

#include <gtest/gtest.h>

#include "engine/model/threshold_table.h"
#include "stats/sequential.h"

namespace pe::spec {
namespace {

using model::kThresholdRows;
using model::ThresholdRow;
using model::Thresholds;

// A bar each row accepts: a rate's is 0.5 (resolvable), a ratio's 1.
double AcceptedBar(const ThresholdRow& row) { return row.unit == model::Check::Unit::kRate ? 0.5 : 1.0; }

TEST(RoundsReachTest, EverySequentialRowOfTheTableIsCheckedAndNoPointRowIs) {
  int sequential = 0;
  for (const ThresholdRow& row : kThresholdRows) {
    Thresholds t;
    t.*row.bar = AcceptedBar(row);
    const auto shortfall = FindRoundsShortfall(t, 1);
    if (row.sequence == nullptr) {
      EXPECT_FALSE(shortfall.has_value()) << row.key << ": a point check needs no rounds";
      continue;
    }
    ++sequential;
    ASSERT_TRUE(shortfall.has_value()) << row.key << " is not checked for rounds";
    EXPECT_EQ(shortfall->threshold, row.key);
    EXPECT_EQ(shortfall->needed, *stats::MinTrialsToExclude(0.5, t.confidence)) << row.key;
    EXPECT_NE(shortfall->message.find(std::string(row.key)), std::string::npos) << shortfall->message;
    // Enough rounds resolve it.
    EXPECT_FALSE(FindRoundsShortfall(t, shortfall->needed).has_value()) << row.key;
  }
  EXPECT_GE(sequential, 5);
}

TEST(RoundsReachTest, AWinRateOfOneCanNeverBeShown) {
  Thresholds t;
  t.min_win_rate = 1.0;
  const auto shortfall = FindRoundsShortfall(t, 1000);
  ASSERT_TRUE(shortfall.has_value());
  EXPECT_EQ(shortfall->threshold, "min_win_rate");
  EXPECT_EQ(shortfall->needed, 0);
  EXPECT_TRUE(shortfall->message.starts_with("min_win_rate = 1 can never be shown")) << shortfall->message;
}

TEST(RoundsReachTest, RatiosAreNamedBeforeTheWinRate) {
  Thresholds t;
  t.min_win_rate = 0.5;
  t.max_slowdown = 1.1;
  const auto shortfall = FindRoundsShortfall(t, 2);
  ASSERT_TRUE(shortfall.has_value());
  EXPECT_EQ(shortfall->threshold, "max_slowdown");
}

}  // namespace
}  // namespace pe::spec
