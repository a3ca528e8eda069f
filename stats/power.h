// How many paired rounds would resolve a given effect, from the spread seen so far.
//
// Model: the paired log-ratios d_i = log(candidate_i / baseline_i) are roughly normal
// with standard deviation sigma (their sample standard deviation, ddof = 1). A two-sided
// test at level alpha = 1 - confidence detects a true shift of delta = log(1 + effect)
// with the requested power when
//   n >= ((t_{n-1, 1-alpha/2} + t_{n-1, power}) sigma / delta)^2,
// the one-sample t-test sample size (Cohen 1988, ch. 2; Julious 2004, Statistics in
// Medicine 23:1921). Started from the normal-quantile answer, n is refined with Student t
// quantiles until it stops changing, which matters below about 30 rounds.
// Its companion rule of thumb: google/benchmark warns below 9 repetitions.
#pragma once

#include <span>

namespace pe::stats {

struct PowerEstimate {
  double sigma = 0;      // standard deviation of the paired log-ratios
  double effect = 0.02;  // relative effect to resolve (0.02 = 2%)
  double confidence = 0.95;
  double power = 0.8;
  int rounds = 2;       // rounds needed, at least 2; capped at kMaxRounds
  bool capped = false;  // the answer exceeded kMaxRounds
};

inline constexpr int kMaxRounds = 1000000;

// From a known sigma >= 0. sigma = 0 returns 2 (the fewest that give a spread at all).
// Throws StatsError when effect <= 0, confidence or power is outside (0, 1), or sigma
// is negative or not finite.
PowerEstimate RoundsForEffect(double sigma, double effect, double confidence, double power = 0.8);

// From observed log-ratios: n < 2 throws StatsError (no spread to measure); all ties
// give sigma = 0 and 2 rounds.
PowerEstimate RoundsToResolve(std::span<const double> log_ratios, double effect = 0.02, double confidence = 0.95,
                              double power = 0.8);

}  // namespace pe::stats
