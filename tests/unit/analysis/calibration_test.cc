// ReachOfCheck (engine/analysis/calibration.h): the detectable change is judged by simulation
// through the gate's own median confidence sequence (stats::MedianSequence), not by the
// formula it came from.
#include "engine/analysis/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/detectable.h"
#include "stats/error.h"
#include "stats/futility.h"
#include "stats/sequential.h"

namespace pe::analysis {
namespace {

TEST(ReachOfCheck, NoNoiseShowsAnythingAboveTheBarAndAnUnchangedCandidateResolvesAtTheFewestRounds) {
  const CheckReach r = ReachOfCheck(0, 1.05, 30, 0.95);
  ASSERT_TRUE(r.detectable);
  EXPECT_DOUBLE_EQ(*r.detectable, 1.05);
  ASSERT_TRUE(r.rounds_unchanged);
  EXPECT_EQ(*r.rounds_unchanged, 7);  // a unanimous series at 95% (stats/sequential.h)
}

TEST(ReachOfCheck, MoreNoiseNeedsALargerChangeAndMoreRounds) {
  const CheckReach quiet = ReachOfCheck(0.01, 1.01, 30, 0.95);
  const CheckReach noisy = ReachOfCheck(0.10, 1.01, 30, 0.95);
  ASSERT_TRUE(quiet.detectable && noisy.detectable);
  EXPECT_GT(*quiet.detectable, 1.01);
  EXPECT_GT(*noisy.detectable, *quiet.detectable + 0.05);
  ASSERT_TRUE(quiet.rounds_unchanged && noisy.rounds_unchanged);
  EXPECT_GT(*noisy.rounds_unchanged, *quiet.rounds_unchanged);
  EXPECT_GT(*noisy.rounds_unchanged, 1000);  // a 1% bar under 10% noise: far beyond any run
}

// [run] final_look: what calibrate promises is what the gate's check would say it could have
// seen at max_rounds (gate.cc's AddDetectable): the Hodges-Lehmann half where it sees more, and
// the sequence's rounds at half the alpha.
TEST(ReachOfCheck, AFinalLookShowsLessAtMaxRoundsAndTakesItsSequenceAtHalfTheAlpha) {
  const double level = 1 - 0.05 / 36, half = 1 - 0.05 / 72;
  const CheckReach alone = ReachOfCheck(0.02, 1.01, 16, level);
  const CheckReach final = ReachOfCheck(0.02, 1.01, 16, level, 0.8, 0, true);
  ASSERT_TRUE(alone.detectable && final.detectable);
  EXPECT_DOUBLE_EQ(*final.detectable, *stats::SignedRankDetectableRatioAbove(0.02, 16, 1.01, half));
  EXPECT_LT(*final.detectable, *alone.detectable - 0.01);
  EXPECT_EQ(final.rounds_unchanged, ReachOfCheck(0.02, 1.01, 16, half).rounds_unchanged);
}

// [run] futility: an unchanged candidate at a bar of 1.01 never resolves its sequence in 32
// rounds (the median sits one noise from the bar), but its check stops at round 8 and passes; a
// candidate 5% slower is not stopped, and what the check shows is unchanged.
TEST(ReachOfCheck, FutilityEndsAnUnchangedCandidatesCheckWhereItWouldStop) {
  const double level = 1 - 0.05 / 36, half = 1 - 0.05 / 72;
  const CheckReach without = ReachOfCheck(0.018, 1.01, 32, level, 0.8, std::log(1.05), true);
  const CheckReach with = ReachOfCheck(0.018, 1.01, 32, level, 0.8, std::log(1.05), true, true);
  EXPECT_GT(without.rounds_unchanged.value_or(1000), 32);
  EXPECT_EQ(with.rounds_unchanged, stats::FutilityStopRound(0, 0.018, std::log(1.01), 32, half));
  EXPECT_EQ(with.rounds_unchanged, 8);
  EXPECT_EQ(with.rounds_assumed, without.rounds_assumed);
  EXPECT_EQ(with.detectable, without.detectable);
  EXPECT_FALSE(stats::FutilityStopRound(std::log(1.05), 0.018, std::log(1.01), 32, half));
}

TEST(ReachOfCheck, MoreRoundsDetectASmallerChange) {
  EXPECT_LT(*ReachOfCheck(0.05, 1.0, 120, 0.95).detectable, *ReachOfCheck(0.05, 1.0, 30, 0.95).detectable);
}

TEST(ReachOfCheck, TooFewRoundsDetectNothing) {
  EXPECT_FALSE(ReachOfCheck(0.05, 1.0, 6, 0.95).detectable);  // 7 is the fewest at 95%
  EXPECT_TRUE(ReachOfCheck(0.05, 1.0, 7, 0.95).detectable);
  EXPECT_FALSE(ReachOfCheck(0.05, 1.0, 9, 0.99).detectable);  // 10 at 99%
}

TEST(ReachOfCheck, AnUnchangedCandidateNeverResolvesAgainstABarOfOne) {
  EXPECT_FALSE(ReachOfCheck(0.05, 1.0, 30, 0.95).rounds_unchanged);
}

// The independent judge: draw max_rounds log-ratios centred on log(detectable) and ask the
// gate's own sequence whether it shows the figure above the bar at the last round.
TEST(ReachOfCheck, TheDetectableChangeIsShownInEightyPercentOfSimulatedRuns) {
  for (const auto& [sigma, bar, rounds] : {std::tuple{0.05, 1.0, 30}, std::tuple{0.02, 1.01, 60}}) {
    const double shift = std::log(*ReachOfCheck(sigma, bar, rounds, 0.95).detectable);
    std::mt19937_64 random(20261204);
    std::normal_distribution<double> noise(shift, sigma);
    const int runs = 4000;
    int shown = 0;
    for (int run = 0; run < runs; ++run) {
      std::vector<double> x(rounds);
      for (double& v : x) v = noise(random);
      shown += stats::MedianSequence(x, 0.95).low > std::log(bar) ? 1 : 0;
    }
    const double power = static_cast<double>(shown) / runs;
    EXPECT_GT(power, 0.76) << sigma << " " << bar;  // 0.8 less 6 standard errors
    EXPECT_LT(power, 0.84) << sigma << " " << bar;
  }
}

TEST(ReachOfCheck, RejectsWhatIsNotAQuestion) {
  EXPECT_THROW(ReachOfCheck(-0.1, 1.0, 30, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfCheck(0.1, 0, 30, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfCheck(0.1, 1.0, 0, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfCheck(0.1, 1.0, 30, 1.0), stats::StatsError);
  EXPECT_THROW(ReachOfCheck(0.1, 1.0, 30, 0.95, 0), stats::StatsError);
}

}  // namespace
}  // namespace pe::analysis
