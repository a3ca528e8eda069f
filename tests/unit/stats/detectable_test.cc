// What a median-sequence check could have seen (stats/detectable.h). The independent judge is
// MedianSequence itself, run on simulated rounds at the shift the function returns.
#include "stats/detectable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <vector>

#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/paired.h"
#include "stats/random.h"
#include "stats/sequential.h"

namespace pe::stats {
namespace {

// The share of `runs` simulated series of `rounds` Normal(log(ratio), sigma) log-ratios (Box-Muller
// on `seed`'s draws) that `shows` judges shown.
template <typename Shows>
double ShareShown(std::uint64_t seed, int runs, int rounds, double ratio, double sigma, Shows shows) {
  Random r(seed);
  auto uniform = [&] {
    return (static_cast<double>(r.Below(std::uint64_t{1} << 53)) + 0.5) / static_cast<double>(std::uint64_t{1} << 53);
  };
  int shown = 0;
  std::vector<double> x(rounds);
  for (int run = 0; run < runs; ++run) {
    for (double& v : x) {
      v = std::log(ratio) + sigma * std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    }
    if (shows(x)) ++shown;
  }
  return static_cast<double>(shown) / runs;
}

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
  const double share = ShareShown(7, kRuns, kRounds, ratio, kSigma, [&](const std::vector<double>& x) {
    return MedianSequence(x, 0.95).low > std::log(kBar);
  });
  EXPECT_NEAR(share, 0.8, 3 * std::sqrt(0.8 * 0.2 / kRuns));
}

// The Hodges-Lehmann interval's power (SignedRankDetectableRatioAbove): HodgesLehmann itself is
// the judge, on samples from another seed and another normal draw (Box-Muller) than the
// function's own, at a family-wise level like ruby/json's (36 checks, half of each one's alpha).
TEST(Detectable, SignedRankPowerAtTheReturnedShiftIsEightyPercent) {
  constexpr int kRuns = 2000;
  constexpr double kSigma = 0.02, kBar = 1.01;
  const double level = 1 - 0.05 / 36 / 2;
  for (int rounds : {16, 30}) {
    const double ratio = *SignedRankDetectableRatioAbove(kSigma, rounds, kBar, level);
    const double share = ShareShown(11, kRuns, rounds, ratio, kSigma, [&](const std::vector<double>& x) {
      return HodgesLehmann(x, level).low > std::log(kBar);
    });
    EXPECT_NEAR(share, 0.8, 3 * std::sqrt(0.8 * 0.2 / kRuns)) << rounds << " rounds";
  }
}

// Where it is used (engine/analysis/sequences.h, a final look) it must see more than the median
// sequence at the same rounds and level, or the final look would be a cost for nothing.
TEST(Detectable, SignedRankSeesMoreThanTheMedianSequenceAndMoreWithMoreRounds) {
  const double level = 1 - 0.05 / 36 / 2;
  const double sequence = *DetectableRatioAbove(0.02, 16, 1.01, level);
  const double signed_rank = *SignedRankDetectableRatioAbove(0.02, 16, 1.01, level);
  EXPECT_LT(signed_rank, sequence);
  EXPECT_GT(signed_rank, 1.01);
  EXPECT_LT(*SignedRankDetectableRatioAbove(0.02, 30, 1.01, level), signed_rank);
  // The same arguments, the same figure (a fixed seed, computed once).
  EXPECT_EQ(*SignedRankDetectableRatioAbove(0.02, 16, 1.01, level), signed_rank);
  // Beyond 100 rounds the asymptotic figure carries on the simulated one's trend.
  const double at100 = *SignedRankDetectableRatioAbove(0.02, 100, 1.0, 0.95);
  const double at101 = *SignedRankDetectableRatioAbove(0.02, 101, 1.0, 0.95);
  EXPECT_NEAR(std::log(at101) / std::log(at100), 1.0, 0.05);
}

TEST(Detectable, SignedRankEdges) {
  EXPECT_DOUBLE_EQ(*SignedRankDetectableRatioAbove(0, 16, 1.01, 0.95), 1.01);
  // Five rounds cannot reach 95% (2^-5 per tail is above 2.5%): no shift can be shown.
  EXPECT_FALSE(SignedRankDetectableRatioAbove(0.02, 5, 1.0, 0.95));
  EXPECT_TRUE(SignedRankDetectableRatioAbove(0.02, 6, 1.0, 0.95));
  EXPECT_FALSE(SignedRankDetectableRatioAbove(0.02, 0, 1.0, 0.95));
  EXPECT_THROW(SignedRankDetectableRatioAbove(-1, 16, 1.0, 0.95), StatsError);
  EXPECT_THROW(SignedRankDetectableRatioAbove(0.02, 16, 0, 0.95), StatsError);
  EXPECT_THROW(SignedRankDetectableRatioAbove(0.02, 16, 1.0, 1.0), StatsError);
}

// A win-rate check at the returned speed-up: rounds won with probability Phi(log(s) / sigma)
// lift the proportion sequence's low end to the bar in about 80% of 2,000 simulated runs
// (ProportionSequence as the judge).
TEST(Detectable, SimulatedWinRatePowerAtTheReturnedSpeedupIsEightyPercent) {
  constexpr int kRuns = 2000, kRounds = 30;
  constexpr double kSigma = 0.05, kBar = 0.5;
  const double speedup = *DetectableWinSpeedup(kSigma, kRounds, kBar, 0.95);
  EXPECT_GT(speedup, 1.0);
  Random r(11);
  auto uniform = [&] {
    return (static_cast<double>(r.Below(std::uint64_t{1} << 53)) + 0.5) / static_cast<double>(std::uint64_t{1} << 53);
  };
  int shown = 0;
  for (int run = 0; run < kRuns; ++run) {
    int wins = 0;
    for (int i = 0; i < kRounds; ++i) {
      const double x =
          std::log(speedup) + kSigma * std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
      wins += x > 0 ? 1 : 0;
    }
    if (ProportionSequence(wins, kRounds, 0.95).low >= kBar) ++shown;
  }
  // The count of wins is discrete, so the power at the returned speed-up is at least 80%, and
  // not far above it.
  const double share = static_cast<double>(shown) / kRuns;
  EXPECT_NEAR(share, 0.8, 3 * std::sqrt(0.8 * 0.2 / kRuns));
}

TEST(Detectable, WinSpeedupEdges) {
  EXPECT_EQ(*DetectableWinSpeedup(0, 30, 0.5, 0.95), 1.0);  // no noise: any speed-up wins every round
  EXPECT_FALSE(DetectableWinSpeedup(0.05, 6, 0.5, 0.95));   // 6 rounds never resolve at 95%
  EXPECT_FALSE(DetectableWinSpeedup(0.05, 30, 1.0, 0.95));  // a bar of 100% is never shown
  EXPECT_THROW(DetectableWinSpeedup(0.05, 30, 1.5, 0.95), StatsError);
  EXPECT_GT(*DetectableWinSpeedup(0.05, 20, 0.5, 0.95), *DetectableWinSpeedup(0.05, 60, 0.5, 0.95));
}

// The binomial sums as they were written before their coefficients were hoisted out of the
// bisection: every term from three lgamma calls (stats/detectable.cc, before 4 December 2026).
double TermByTermCdf(int k, int n, double q) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  double total = 0;
  for (int i = 0; i <= k; ++i) {
    const double log_term = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(q) +
                            (n - i) * std::log1p(-q);
    total += std::exp(log_term);
  }
  return std::min(total, 1.0);
}

std::optional<double> TermByTermRatioAbove(double sigma, int rounds, double bar, double confidence, double power) {
  std::vector<double> x(rounds);
  for (int i = 0; i < rounds; ++i) x[i] = i;
  const int j = rounds == 0 ? 0 : MedianSequence(x, confidence).order;
  if (j <= 0) return std::nullopt;
  if (sigma == 0) return bar;
  double low = 0, high = 0.5;
  for (int it = 0; it < 100; ++it) {
    const double mid = (low + high) / 2;
    (TermByTermCdf(j - 1, rounds, mid) >= power ? low : high) = mid;
  }
  return bar * std::exp(-sigma * NormalQuantile(low));
}

std::optional<double> TermByTermWinSpeedup(double sigma, int rounds, double bar, double confidence, double power) {
  std::optional<int> fewest;
  for (int wins = 0; wins <= rounds && !fewest; ++wins) {
    if (ProportionSequence(wins, rounds, confidence).low >= bar) fewest = wins;
  }
  if (!fewest || rounds == 0) return std::nullopt;
  if (sigma == 0) return 1.0;
  double low = 0, high = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    (1 - TermByTermCdf(*fewest - 1, rounds, mid) >= power ? high : low) = mid;
  }
  return std::exp(sigma * NormalQuantile(std::clamp(high, 1e-12, 1 - 1e-12)));
}

TEST(Detectable, SameToTheLastBitAsTheTermByTermSums) {
  // The gate computes these for every check after every round; their speed-up must not move
  // a single figure a report prints.
  int compared = 0;
  for (double sigma : {0.0, 0.002, 0.05}) {
    for (int rounds : {0, 6, 7, 13, 29, 61, 120}) {
      for (double confidence : {0.95, 0.9974, 1 - 0.05 / 60}) {
        for (double power : {0.8, 0.95}) {
          const std::optional<double> above = DetectableRatioAbove(sigma, rounds, 1.01, confidence, power);
          const std::optional<double> reference = TermByTermRatioAbove(sigma, rounds, 1.01, confidence, power);
          ASSERT_EQ(above.has_value(), reference.has_value()) << sigma << " " << rounds << " " << confidence;
          if (above) EXPECT_EQ(*above, *reference) << sigma << " " << rounds << " " << confidence << " " << power;
          for (double bar : {0.5, 0.6}) {
            const std::optional<double> wins = DetectableWinSpeedup(sigma, rounds, bar, confidence, power);
            const std::optional<double> wins_reference = TermByTermWinSpeedup(sigma, rounds, bar, confidence, power);
            ASSERT_EQ(wins.has_value(), wins_reference.has_value()) << sigma << " " << rounds << " " << bar;
            if (wins) EXPECT_EQ(*wins, *wins_reference) << sigma << " " << rounds << " " << bar << " " << power;
            compared += wins.has_value();
          }
          compared += above.has_value();
        }
      }
    }
  }
  EXPECT_GT(compared, 150);  // most combinations have a figure to compare
}

TEST(Detectable, RoundsToShowAShiftFallWithTheShiftAndRiseWithTheNoise) {
  // No noise: the fewest rounds any series resolves in (7 at 95%).
  EXPECT_EQ(*RoundsToShowShift(0, 0.05, 0.95), 7);
  const int small = *RoundsToShowShift(0.1, std::log(1.05), 0.95);
  EXPECT_GT(small, *RoundsToShowShift(0.1, std::log(1.2), 0.95));
  EXPECT_LT(small, *RoundsToShowShift(0.3, std::log(1.05), 0.95));
  // Defined as the median sequence's rounds at the share a shift leaves below the bar.
  EXPECT_EQ(small, *TrialsToExclude(NormalCdf(-std::log(1.05) / 0.1), 0.5, 0.95));
  EXPECT_FALSE(RoundsToShowShift(10, 0.001, 0.95, 1000));  // beyond the cap
  EXPECT_THROW(RoundsToShowShift(0.1, 0, 0.95), StatsError);
  // Wins: a share that does not exceed the bar never shows it.
  EXPECT_FALSE(RoundsToShowWins(0.1, 0, 0.5, 0.95));
  EXPECT_EQ(*RoundsToShowWins(0.1, 0.1, 0, 0.95), 1);
  EXPECT_EQ(*RoundsToShowWins(0.1, 0.1, 0.6, 0.95), *TrialsToExclude(NormalCdf(1.0), 0.6, 0.95));
}

// A symmetric interval estimate +- z se: the figure shown beyond the bar with 80% power lies
// (z + z_0.8) se beyond it (the z-test's power; Cohen 1988).
TEST(Detectable, BeyondAnIntervalIsTheZTestsPowerDistance) {
  const double z = NormalQuantile(0.975), se = 0.1;
  const double above = DetectableBeyondInterval(1.0, 1.0 - z * se, 1.0 + z * se, 0.95, 1.2, true);
  EXPECT_NEAR(above, 1.2 + (z + NormalQuantile(0.8)) * se, 1e-12);
  const double below = DetectableBeyondInterval(1.0, 1.0 - z * se, 1.0 + z * se, 0.95, 1.2, false);
  EXPECT_NEAR(below, 1.2 - (z + NormalQuantile(0.8)) * se, 1e-12);
  // Each side reads its own half-width; a point interval gives the bar.
  EXPECT_NEAR(DetectableBeyondInterval(1.0, 0.9, 1.5, 0.95, 1.2, true) - 1.2,
              (1.0 - 0.9) * (z + NormalQuantile(0.8)) / z, 1e-12);
  EXPECT_DOUBLE_EQ(DetectableBeyondInterval(1.0, 1.0, 1.0, 0.95, 1.2, true), 1.2);
  EXPECT_THROW(DetectableBeyondInterval(1.0, 1.1, 0.9, 0.95, 1.2, true), StatsError);
  EXPECT_THROW(DetectableBeyondInterval(1.0, 0.9, INFINITY, 0.95, 1.2, true), StatsError);
}

}  // namespace
}  // namespace pe::stats
