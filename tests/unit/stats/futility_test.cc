#include "stats/futility.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/detectable.h"
#include "stats/paired.h"

namespace pe::stats {
namespace {

// ruby/json's worker spec: 36 checks at 95% together, max_slowdown 1.01, a final look at round 32.
constexpr int kFinal = 32;
const double kCheckLevel = 1 - 0.05 / 36;
const double kHalf = 1 - (1 - kCheckLevel) / 2;
const double kLogBar = std::log(1.01);

std::vector<double> Draws(std::mt19937_64& rng, int n, double mu, double sigma) {
  std::normal_distribution<double> normal(mu, sigma);
  std::vector<double> out(n);
  for (double& x : out) x = normal(rng);
  return out;
}

TEST(FinalLookFutilityTest, NoReadingWithoutRoundsLeftOrSpread) {
  EXPECT_FALSE(FinalLookFutility(std::vector<double>{0.01}, kLogBar, kFinal, kHalf));
  EXPECT_FALSE(FinalLookFutility(std::vector<double>(kFinal, 0.01), kLogBar, kFinal, kHalf));
  EXPECT_FALSE(FinalLookFutility(std::vector<double>(10, 0.0), kLogBar, kFinal, kHalf));  // no spread
  EXPECT_FALSE(FinalLookFutility(std::vector<double>{0.01, -0.01, 0.0}, kLogBar, kFinal, 1.0));
}

TEST(FinalLookFutilityTest, RoundsCentredOnOneAreFutileAndRoundsAboveTheBarAreNot) {
  // Ten rounds spread 1.8% about 1.00x: even at their optimistic centre the final look could not
  // clear 1.01x. The same rounds shifted to 1.04x could.
  const std::vector<double> centred = {-0.02, 0.015, -0.005, 0.01, 0.0, -0.012, 0.02, 0.004, -0.018, 0.008};
  const auto quiet = FinalLookFutility(centred, kLogBar, kFinal, kHalf);
  ASSERT_TRUE(quiet);
  EXPECT_TRUE(quiet->Futile()) << quiet->chance;
  EXPECT_GT(quiet->optimistic_log, 0);
  std::vector<double> shifted = centred;
  for (double& x : shifted) x += std::log(1.04);
  const auto slower = FinalLookFutility(shifted, kLogBar, kFinal, kHalf);
  ASSERT_TRUE(slower);
  EXPECT_FALSE(slower->Futile()) << slower->chance;
  EXPECT_GT(slower->chance, 0.5);
}

// The whole design by simulation: the final look's Hodges-Lehmann interval at round 32, with
// and without the engine's futility stops from round 8. Stopping costs at most 2 points of
// power at the shift the final look shows with 80% power, and an A/A pair stops early.
TEST(FinalLookFutilityTest, StopsCostLittlePowerAndEndAnAAPairEarly) {
  const double sigma = 0.018;
  const double shown = *SignedRankDetectableRatioAbove(sigma, kFinal, 1.01, kHalf);
  std::mt19937_64 rng(20261206);
  auto run = [&](double mu, int* stopped_at) {
    const std::vector<double> x = Draws(rng, kFinal, mu, sigma);
    *stopped_at = 0;
    for (int n = kFutilityFirstRound; n < kFinal; ++n) {
      const auto reading = FinalLookFutility(std::span(x).first(n), kLogBar, kFinal, kHalf);
      if (reading && reading->Futile()) {
        *stopped_at = n;
        break;
      }
    }
    return HodgesLehmann(x, kHalf).low > kLogBar;  // what the final look alone shows
  };
  const int reps = 1500;
  int shown_without = 0, shown_with = 0, aa_stopped_by_12 = 0, aa_false = 0;
  for (int r = 0; r < reps; ++r) {
    int stopped = 0;
    const bool fails = run(std::log(shown), &stopped);
    shown_without += fails;
    shown_with += fails && stopped == 0;
    aa_false += run(0, &stopped);
    aa_stopped_by_12 += stopped > 0 && stopped <= 12;
  }
  EXPECT_NEAR(shown_without / double(reps), 0.80, 0.04);
  EXPECT_LE(shown_without - shown_with, 0.02 * reps) << shown_without << " " << shown_with;
  EXPECT_GE(aa_stopped_by_12, 0.9 * reps);
  EXPECT_LE(aa_false, 2);
}

}  // namespace
}  // namespace pe::stats
