// Confidence sequences (stats/sequential.h): exact small cases, and their time-uniform
// coverage checked by simulation: a sequence looked at after every draw must exclude the
// truth at ANY point in at most alpha of the runs (fixed seeds, thousands of sequences).
#include "stats/sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "stats/error.h"

namespace pe::stats {
namespace {

TEST(Sequential, MartingaleStartsAtOneAndMatchesTheBetaFunction) {
  EXPECT_DOUBLE_EQ(LogMixtureMartingale(0, 0, 0.5), 0.0);
  // One success: B(3/2, 1/2) / B(1/2, 1/2) / p = (pi/2) / pi / p = 1 / (2p).
  EXPECT_NEAR(LogMixtureMartingale(1, 1, 0.25), std::log(2.0), 1e-12);
  EXPECT_THROW(LogMixtureMartingale(3, 2, 0.5), StatsError);
  EXPECT_THROW(LogMixtureMartingale(1, 2, 1.5), StatsError);
}

TEST(Sequential, UnanimousRoundsNeededAtTheUsualLevels) {
  EXPECT_EQ(MinTrialsToExclude(0.5, 0.95), 7);
  EXPECT_EQ(MinTrialsToExclude(0.5, 0.99), 10);
  EXPECT_EQ(MinTrialsToExclude(0.5, 0.90), 6);
  EXPECT_FALSE(MinTrialsToExclude(1.0, 0.95).has_value());  // a 100% win rate can never be shown
  EXPECT_GT(*MinTrialsToExclude(0.8, 0.95), 20);
}

TEST(Sequential, ProportionSequenceExcludesHalfOnlyWithEnoughEvidence) {
  EXPECT_LT(ProportionSequence(6, 6, 0.95).low, 0.5);
  EXPECT_GT(ProportionSequence(7, 7, 0.95).low, 0.5);
  EXPECT_DOUBLE_EQ(ProportionSequence(7, 7, 0.95).high, 1.0);
  const ProportionBounds none = ProportionSequence(0, 0, 0.95);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_EQ(none.high, 1.0);
  // The ends are where the martingale reaches 1/alpha.
  const ProportionBounds b = ProportionSequence(30, 40, 0.95);
  EXPECT_NEAR(LogMixtureMartingale(30, 40, b.low), -std::log(0.05), 1e-9);
  EXPECT_NEAR(LogMixtureMartingale(30, 40, b.high), -std::log(0.05), 1e-9);
  EXPECT_LT(b.low, 0.75);
  EXPECT_GT(b.high, 0.75);
  EXPECT_THROW(ProportionSequence(1, 2, 1.0), StatsError);
}

TEST(Sequential, MedianSequenceEndsAreOrderStatistics) {
  std::vector<double> x;
  for (int i = 20; i >= 1; --i) x.push_back(i);
  const MedianBounds b = MedianSequence(x, 0.95);
  ASSERT_GT(b.order, 0);
  EXPECT_GE(LogMixtureMartingale(b.order - 1, 20, 0.5), -std::log(0.05));
  EXPECT_LT(LogMixtureMartingale(b.order, 20, 0.5), -std::log(0.05));
  EXPECT_EQ(b.low, b.order);
  EXPECT_EQ(b.high, 21 - b.order);
  // Too few values to exclude anything.
  const std::vector<double> few = {1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(std::isinf(MedianSequence(few, 0.95).low));
  EXPECT_TRUE(std::isinf(MedianSequence(few, 0.95).high));
  EXPECT_TRUE(std::isinf(MedianSequence({}, 0.95).low));
  const std::vector<double> bad = {1, NAN};
  EXPECT_THROW(MedianSequence(bad, 0.95), StatsError);
}

TEST(Sequential, TrialsToExcludeGrowsAsTheFractionNearsTheBar) {
  EXPECT_EQ(TrialsToExclude(1.0, 0.5, 0.95), MinTrialsToExclude(0.5, 0.95));
  EXPECT_FALSE(TrialsToExclude(0.5, 0.5, 0.95).has_value());
  const int far = *TrialsToExclude(0.9, 0.5, 0.95);
  const int near = *TrialsToExclude(0.6, 0.5, 0.95);
  EXPECT_LT(far, near);
  // At the answer the sequence does exclude the bar, one round earlier it does not.
  const int k = static_cast<int>(std::lround(0.6 * near));
  EXPECT_GE(LogMixtureMartingale(k, near, 0.5), -std::log(0.05));
  EXPECT_FALSE(TrialsToExclude(0.5001, 0.5, 0.95, 1000).has_value());  // beyond the cap
}

// Time-uniform coverage: the share of sequences that EVER exclude the truth, looking after
// every draw up to `horizon`, stays at or below alpha (plus Monte-Carlo slack of about
// three standard errors).
double EverExcludedShare(int sequences, int horizon, double confidence, double p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution draw(p);
  const double threshold = -std::log(1 - confidence);
  int excluded = 0;
  for (int s = 0; s < sequences; ++s) {
    int k = 0;
    for (int n = 1; n <= horizon; ++n) {
      k += draw(rng) ? 1 : 0;
      if (LogMixtureMartingale(k, n, p) >= threshold) {
        ++excluded;
        break;
      }
    }
  }
  return static_cast<double>(excluded) / sequences;
}

TEST(SequentialCoverage, ProportionHoldsAtEveryLook) {
  for (double p : {0.5, 0.3, 0.9}) {
    for (double confidence : {0.95, 0.99}) {
      const double alpha = 1 - confidence;
      const int sequences = 4000;
      const double share = EverExcludedShare(sequences, 300, confidence, p, 20261203);
      EXPECT_LE(share, alpha + 3 * std::sqrt(alpha * (1 - alpha) / sequences)) << "p " << p << " at " << confidence;
    }
  }
}

// The contrast that motivates it: a fixed-n 95% sign test looked at after every round from
// round 6 to 60 rejects a true null far more often than 5%.
TEST(SequentialCoverage, RepeatedFixedSampleTestsWouldNotHold) {
  std::mt19937_64 rng(7);
  std::bernoulli_distribution draw(0.5);
  int rejected = 0;
  const int sequences = 2000;
  for (int s = 0; s < sequences; ++s) {
    int k = 0;
    for (int n = 1; n <= 60; ++n) {
      k += draw(rng) ? 1 : 0;
      const double z = (k - 0.5 * n) / std::sqrt(0.25 * n);
      if (n >= 6 && std::abs(z) > 1.96) {
        ++rejected;
        break;
      }
    }
  }
  EXPECT_GT(static_cast<double>(rejected) / sequences, 0.15);
}

TEST(SequentialCoverage, MedianHoldsForSkewedAndHeavyTailedRounds) {
  const double confidence = 0.95, alpha = 0.05;
  const int sequences = 3000, horizon = 80;
  struct Case {
    const char* name;
    double median;
  };
  for (int dist = 0; dist < 3; ++dist) {
    std::mt19937_64 rng(1000 + dist);
    std::normal_distribution<double> normal(0, 1);
    std::lognormal_distribution<double> lognormal(std::log(0.05), 0.4);
    std::cauchy_distribution<double> cauchy(0.01, 0.02);
    const double median = dist == 0 ? 0.0 : dist == 1 ? 0.05 : 0.01;
    int excluded = 0;
    for (int s = 0; s < sequences; ++s) {
      std::vector<double> x;
      for (int n = 1; n <= horizon; ++n) {
        x.push_back(dist == 0 ? 0.02 * normal(rng) : dist == 1 ? lognormal(rng) : cauchy(rng));
        const MedianBounds b = MedianSequence(x, confidence);
        if (median < b.low || median > b.high) {
          ++excluded;
          break;
        }
      }
    }
    EXPECT_LE(static_cast<double>(excluded) / sequences, alpha + 3 * std::sqrt(alpha * (1 - alpha) / sequences))
        << "distribution " << dist;
  }
}

TEST(SequentialCoverage, MedianResolvesARealShift) {
  // Log-ratios of a 3% regression under 1% noise: the lower end clears log(1.01) soon.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(std::log(1.03), 0.01);
  std::vector<double> x;
  int resolved_at = 0;
  for (int n = 1; n <= 60 && resolved_at == 0; ++n) {
    x.push_back(noise(rng));
    if (MedianSequence(x, 0.95).low > std::log(1.01)) resolved_at = n;
  }
  EXPECT_GT(resolved_at, 0);
  EXPECT_LE(resolved_at, 20);
}

}  // namespace
}  // namespace pe::stats
