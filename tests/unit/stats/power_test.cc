#include "stats/power.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/error.h"
#include "vectors.h"

namespace pe::stats {
namespace {

// The reference applies the same formula with SciPy's t and normal quantiles
// (make_vectors.py, rounds_for_effect): it checks our quantiles and the search for the
// smallest sufficient n, not the choice of formula.
TEST(PowerTest, MatchesReferenceRoundCounts) {
  const auto vectors = testing::LoadVectors("power.json");
  for (const auto& c : vectors["cases"]) {
    SCOPED_TRACE(c.dump());
    const PowerEstimate estimate = RoundsForEffect(c["sigma"], c["effect"], c["confidence"], c["power"]);
    EXPECT_EQ(estimate.rounds, c["rounds"].get<int>());
    EXPECT_FALSE(estimate.capped);
  }
}

TEST(PowerTest, NoisierRoundsNeedMoreOfThem) {
  int previous = 0;
  for (double sigma : {0.005, 0.01, 0.02, 0.04, 0.08}) {
    const int rounds = RoundsForEffect(sigma, 0.02, 0.95).rounds;
    EXPECT_GT(rounds, previous) << sigma;
    previous = rounds;
  }
}

TEST(PowerTest, FromObservedLogRatiosUsesTheirStandardDeviation) {
  const std::vector<double> logs{-0.05, -0.03, -0.04, -0.06, -0.02, -0.05};
  const PowerEstimate estimate = RoundsToResolve(logs, 0.02, 0.95);
  double mean = 0;
  for (double v : logs) mean += v / logs.size();
  double ss = 0;
  for (double v : logs) ss += (v - mean) * (v - mean);
  EXPECT_DOUBLE_EQ(estimate.sigma, std::sqrt(ss / 5));
  EXPECT_EQ(estimate.rounds, RoundsForEffect(estimate.sigma, 0.02, 0.95).rounds);
}

TEST(PowerTest, EdgeCases) {
  EXPECT_EQ(RoundsToResolve(std::vector<double>(5, 0.01)).rounds, 2);  // all ties: sigma 0
  EXPECT_THROW(RoundsToResolve(std::vector<double>{0.1}), StatsError);
  EXPECT_THROW(RoundsToResolve(std::vector<double>{}), StatsError);
  EXPECT_THROW(RoundsToResolve(std::vector<double>{0.1, std::nan("")}), StatsError);
  EXPECT_THROW(RoundsForEffect(0.01, 0.0, 0.95), StatsError);
  EXPECT_THROW(RoundsForEffect(0.01, 0.02, 1.0), StatsError);
  EXPECT_THROW(RoundsForEffect(-0.01, 0.02, 0.95), StatsError);
  const PowerEstimate huge = RoundsForEffect(10.0, 1e-6, 0.99);
  EXPECT_TRUE(huge.capped);
  EXPECT_EQ(huge.rounds, kMaxRounds);
}

}  // namespace
}  // namespace pe::stats
