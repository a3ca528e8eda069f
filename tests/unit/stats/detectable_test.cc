// What a median-sequence check could have seen (stats/detectable.h). The independent judge is
// MedianSequence itself, run on simulated rounds at the shift the function returns.
#include "stats/detectable.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "stats/error.h"
#include "stats/random.h"
#include "stats/sequential.h"

namespace pe::stats {
namespace {

TEST(Detectable, NoNoiseShowsAnythingBeyondTheBarOnceRoundsSuffice) {
  EXPECT_DOUBLE_EQ(*DetectableRatioAbove(0, 30, 1.01, 0.95), 1.01);
  EXPECT_DOUBLE_EQ(*DetectableRatioBelow(0, 30, 1.05, 0.95), 1.05);
  // 7 rounds are the fewest a 95% sequence can resolve with (stats/sequential.h).
  EXPECT_FALSE(DetectableRatioAbove(0.02, 6, 1.0, 0.95));
  EXPECT_TRUE(DetectableRatioAbove(0.02, 7, 1.0, 0.95));
  EXPECT_FALSE(DetectableRatioAbove(0.02, 0, 1.0, 0.95));
}

TEST(Detectable, MoreRoundsSeeLessAndAHigherLevelSeesMore) {
  const double at20 = *DetectableRatioAbove(0.03, 20, 1.0, 0.95);
  const double at60 = *DetectableRatioAbove(0.03, 60, 1.0, 0.95);
  EXPECT_GT(at20, at60);
  EXPECT_GT(at60, 1.0);
  EXPECT_GT(*DetectableRatioAbove(0.03, 60, 1.0, 0.9974), at60);
  EXPECT_LT(*DetectableRatioBelow(0.03, 60, 1.0, 0.95), 1.0);
  EXPECT_NEAR(std::log(*DetectableRatioBelow(0.03, 60, 1.0, 0.95)), -std::log(at60), 1e-12);
}

TEST(Detectable, RejectsInputWithoutMeaning) {
  EXPECT_THROW(DetectableRatioAbove(-1, 30, 1.0, 0.95), StatsError);
  EXPECT_THROW(DetectableRatioAbove(0.1, 30, 0.0, 0.95), StatsError);
  EXPECT_THROW(DetectableRatioAbove(0.1, 30, 1.0, 1.0), StatsError);
  EXPECT_THROW(DetectableRatioAbove(0.1, -1, 1.0, 0.95), StatsError);
  const std::vector<double> one = {0.1};
  EXPECT_THROW(RobustScale(one), StatsError);
}

TEST(Detectable, RobustScaleOfKnownValues) {
  const std::vector<double> x = {-2, -1, 0, 1, 2};  // MAD 1
  EXPECT_DOUBLE_EQ(RobustScale(x), 1.4826);
}

// At the returned shift, normal rounds make the 95% sequence show the regression in about 80%
// of 2,000 simulated runs of 30 rounds (MedianSequence as the judge).
TEST(Detectable, SimulatedPowerAtTheReturnedShiftIsEightyPercent) {
  constexpr int kRuns = 2000, kRounds = 30;
  constexpr double kSigma = 0.03, kBar = 1.01;
  const double ratio = *DetectableRatioAbove(kSigma, kRounds, kBar, 0.95);
  Random r(7);
  auto uniform = [&] {
    return (static_cast<double>(r.Below(std::uint64_t{1} << 53)) + 0.5) / static_cast<double>(std::uint64_t{1} << 53);
  };
  int shown = 0;
  std::vector<double> x(kRounds);
  for (int run = 0; run < kRuns; ++run) {
    for (double& v : x) {
      v = std::log(ratio) + kSigma * std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    }
    if (MedianSequence(x, 0.95).low > std::log(kBar)) ++shown;
  }
  const double share = static_cast<double>(shown) / kRuns;
  EXPECT_NEAR(share, 0.8, 3 * std::sqrt(0.8 * 0.2 / kRuns));
}

}  // namespace
}  // namespace pe::stats
