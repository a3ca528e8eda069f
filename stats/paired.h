// Paired analysis over rounds: the baseline and the candidate ran once each per round,
// interleaved, so round i of one pairs with round i of the other and the per-round
// ratio cancels drift that both saw.
//
// Sources: Hollander, Wolfe & Chicken (2014), Nonparametric Statistical Methods, 3rd ed.,
// ch. 3 (sign test, Wilcoxon signed-rank, Hodges-Lehmann estimator and its interval);
// Conover (1999), Practical Nonparametric Statistics, for the tie-corrected variance.
#pragma once

#include <span>
#include <vector>

namespace pe::stats {

// candidate[i] / baseline[i] and log(candidate[i] / baseline[i]), per round. Below 1
// (below 0 for the log) the candidate was faster. Throws StatsError for unequal lengths,
// NaN/inf, a baseline <= 0, or (log only) a candidate <= 0. n = 0 returns an empty vector.
std::vector<double> Ratios(std::span<const double> baseline, std::span<const double> candidate);
std::vector<double> LogRatios(std::span<const double> baseline, std::span<const double> candidate);

// Exact two-sided sign test: under H0 a win and a loss are equally likely, so
// wins ~ Binomial(wins + losses, 1/2). p = min(1, 2 P(X <= min(wins, losses))), the same
// as scipy.stats.binomtest(wins, wins + losses, 0.5). Ties carry no sign and are
// excluded from the trials (the classical convention). No trials gives p = 1.
struct SignTestResult {
  int wins = 0;
  int losses = 0;
  int ties = 0;
  double p_value = 1;
};

SignTestResult SignTest(int wins, int losses, int ties = 0);
// A round is a win when candidate[i] < baseline[i]. Throws on unequal lengths or NaN/inf.
SignTestResult SignTestPaired(std::span<const double> baseline, std::span<const double> candidate);

// Wilcoxon signed-rank test of "d is symmetric about 0", two-sided.
// Zeros are dropped before ranking (Wilcoxon's convention, scipy zero_method="wilcox");
// |d| ties get average ranks. No continuity correction (scipy correction=False).
// - Exact: the null distribution of T+ enumerated for n <= 50 nonzero values with no
//   tied |d|; p = min(1, 2 min(P(T+ <= t), P(T+ >= t))), and 1 at the centre.
// - Normal: z = (T - n(n+1)/4) / sigma with
//   sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48 over tie groups, p = 2 P(Z > |z|).
// kAuto picks exact whenever it applies; kExact falls back to normal (and says so in
// `exact`) when there are ties or n > 50. Unlike scipy, zeros do not force the normal
// approximation: they are dropped first, so the exact distribution of the rest is valid.
// n = 0 throws StatsError; no nonzero value gives p = 1 with statistic 0;
// n = 1 nonzero gives p = 1; all |d| tied uses the normal approximation.
enum class WilcoxonMethod { kAuto, kExact, kNormal };

struct WilcoxonResult {
  int n = 0;          // nonzero differences ranked
  int zeros = 0;      // dropped
  bool ties = false;  // some |d| shared a rank
  double r_plus = 0;  // rank sum of positive differences
  double r_minus = 0;
  double statistic = 0;  // min(r_plus, r_minus), as scipy reports it
  bool exact = false;
  double z = 0;  // normal approximation only
  double p_value = 1;
};

WilcoxonResult WilcoxonSignedRank(std::span<const double> d, WilcoxonMethod method = WilcoxonMethod::kAuto);

// Hodges-Lehmann estimate of the centre of d: the median of the n(n+1)/2 Walsh averages
// (d_i + d_j)/2, i <= j, with its distribution-free interval [W_(k), W_(M+1-k)] from the
// signed-rank distribution (Hollander & Wolfe, sec. 3.3). k is the largest integer with
// P(T+ <= k - 1) <= (1 - confidence)/2, exact for n <= 50, otherwise from the normal
// approximation with a continuity correction: k = floor(M/2 + 1/2 - z sigma).
// All n values are used (zeros included: they are data about the centre).
// n = 0 throws StatsError. When n is too small for the level (n < 6 at 95%) the interval
// is the full range of Walsh averages, `level_reached` is false and `achieved_level`
// says what it covers (0 for n = 1). All ties give estimate = low = high = the value.
struct HodgesLehmannResult {
  double estimate = 0;
  double low = 0;
  double high = 0;
  double level = 0.95;           // requested
  double achieved_level = 0.95;  // exact coverage of [low, high] (approximate beyond n = 50)
  bool level_reached = true;
  bool exact = true;
};

HodgesLehmannResult HodgesLehmann(std::span<const double> d, double confidence = 0.95);

// The order statistic k of HodgesLehmann's interval for n values at `confidence` (0: none
// qualifies, the level is out of reach), whether it is exact (n <= 50) and the coverage it
// achieves. The interval's low end W_(k) lies above 0 exactly when T+ >= M + 1 - k, M =
// n(n+1)/2 (the Walsh averages above 0 are T+'s count; Hollander & Wolfe, sec. 3.3), which is
// how stats/detectable.h simulates its power without sorting Walsh averages.
struct WalshOrder {
  std::size_t k = 0;
  bool exact = true;
  double achieved_level = 0;
};
WalshOrder WalshOrderFor(std::size_t n, double confidence);

// Average ranks (1-based) of x, ties sharing the mean of their positions; shared with
// the Mann-Whitney test. `tie_term` receives sum(t^3 - t) over tie groups when non-null.
std::vector<double> AverageRanks(std::span<const double> x, double* tie_term = nullptr);

}  // namespace pe::stats
