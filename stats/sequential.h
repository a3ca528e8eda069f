// Confidence sequences: intervals that hold at every round at once, so the engine may look
// after each round and stop as soon as a check is resolved without inflating its error rate
// (optional stopping). A fixed-n interval looked at after every round is not valid: with
// enough looks it excludes the truth almost surely.
//
// Method. For a probability p, the beta-binomial mixture martingale
//   M_n(p) = B(a + k, b + n - k) / B(a, b) / (p^k (1 - p)^(n - k))
// (k successes in n trials, Beta(a, b) mixing prior, a = b = 1/2) is a nonnegative
// martingale with M_0 = 1 when the trials are independent Bernoulli(p); by Ville's
// inequality P(exists n: M_n(p) >= 1/alpha) <= alpha. So {p : M_n(p) < 1/alpha} is a
// (1 - alpha) confidence sequence for p (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon
// 2021, "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist.
// 49(2), sec. 3 and Prop. 7 for the conjugate-mixture boundary).
//
// A median is a quantile: applied to the indicators 1{x_i < m} at p = 1/2 the same
// martingale gives a confidence sequence for the median of any continuous distribution,
// whose ends are order statistics of the data seen so far (Howard & Ramdas 2022,
// "Sequential estimation of quantiles with applications to A/B-testing and best-arm
// identification", Bernoulli 28(3), Thm. 1 with the beta-binomial boundary). No
// assumption of normality, symmetry or finite variance: one wild round moves it by one
// order statistic, which matters on a shared CI runner.
//
// Tiny samples: n = 0 gives the whole range ([0, 1], or (-inf, +inf) for a median); with
// a = b = 1/2 a unanimous series first excludes p = 1/2 at 7 trials at 95% confidence and
// at 10 at 99% (MinTrialsToExclude), so fewer rounds than that can never resolve a median
// or win-rate check either way.
#pragma once

#include <optional>
#include <span>

namespace pe::stats {

// log M_n(p) above; `successes` in [0, trials], p in (0, 1). Throws StatsError otherwise.
double LogMixtureMartingale(int successes, int trials, double p);

struct ProportionBounds {
  double low = 0;
  double high = 1;
};

// The (confidence) confidence sequence for a Bernoulli probability after `successes` of
// `trials`: the closed interval of p whose martingale stays below 1/alpha. Throws
// StatsError for confidence outside (0, 1) or successes outside [0, trials].
ProportionBounds ProportionSequence(int successes, int trials, double confidence);

struct MedianBounds {
  double low = 0;   // -infinity while no order statistic is excluded yet
  double high = 0;  // +infinity likewise
  int order = 0;    // the ends are the order-th smallest and largest values (0: none)
};

// The confidence sequence for the median of the distribution x was drawn from, after
// x.size() draws: [x_(j), x_(n+1-j)] with j the smallest count of values below m that
// keeps p = 1/2 inside ProportionSequence. NaN/inf throw StatsError; n = 0 gives
// (-inf, +inf).
MedianBounds MedianSequence(std::span<const double> x, double confidence);

// The fewest trials, all successes (or all failures), after which p0 leaves the
// confidence sequence; nullopt when no number of trials can do it (p0 <= 0 or >= 1 on the
// side that would need it) or it would take more than `cap`.
std::optional<int> MinTrialsToExclude(double p0, double confidence, int cap = 1000000);

// How many trials would exclude p0 if the share of successes stayed at `fraction`: the
// smallest n with M_n(p0) >= 1/alpha at round(fraction * n) successes. nullopt when the
// fraction equals p0 (the estimate sits on the bar: no number of rounds resolves it) or
// when it would take more than `cap`. Used for "rounds it would need" in reports; an
// estimate from the spread seen so far, not a promise.
std::optional<int> TrialsToExclude(double fraction, double p0, double confidence, int cap = 1000000);

}  // namespace pe::stats
