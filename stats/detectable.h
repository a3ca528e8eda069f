// What a median confidence-sequence check could have seen: the smallest shift of the median
// per-round log-ratio beyond a bar that its sequence would show with a given power after
// `rounds` rounds ("would have shown a regression of X% or more with 80% power").
//
// Method. After n rounds the median sequence (stats/sequential.h) is [x_(j), x_(n+1-j)] with
// j = j(n, confidence) fixed by n alone. It shows the median above a bar b exactly when fewer
// than j rounds fall at or below log b. With per-round log-ratios ~ Normal(mu, sigma) that
// count is Binomial(n, q), q = Phi((log b - mu) / sigma); the power is P(Bin(n, q) <= j - 1).
// The largest q with power >= `power` (bisection; the power falls as q grows) gives
// mu = log b - sigma Phi^-1(q). sigma is a robust scale, 1.4826 x MAD of the log-ratios
// (Rousseeuw & Croux 1993), so a few wild rounds do not inflate it. The sequence itself
// assumes no normal shape; only this "what it could have seen" figure uses the normal model.
// The same by symmetry for a shift below the bar (speed-ups).
//
// Tiny samples: rounds too few for the sequence to exclude anything (j = 0) give nullopt;
// sigma = 0 gives the bar itself (any shift beyond it is shown in every run).
#pragma once

#include <optional>
#include <span>

namespace pe::stats {

// The median log-ratio mu > log(bar) the check would show above `bar` with probability
// `power`, returned as exp(mu) (a ratio, e.g. 1.034). Throws StatsError for sigma < 0 or
// not finite, bar <= 0, confidence or power outside (0, 1), rounds < 0.
std::optional<double> DetectableRatioAbove(double sigma, int rounds, double bar, double confidence, double power = 0.8);

// What the Hodges-Lehmann interval (stats/paired.h: the Walsh averages' order statistics from the
// Wilcoxon signed-rank distribution) at `confidence` over `rounds` per-round log-ratios could
// have seen: the ratio exp(mu) above `bar` whose interval's low end lies above log(bar) with
// probability `power` when the log-ratios are Normal(mu, sigma). That low end clears the bar
// exactly when the signed-rank statistic T+ of the log-ratios less log(bar) reaches M + 1 - k
// (WalshOrderFor), so the power is simulated on T+: 4000 samples of `rounds` standard normal
// draws from a fixed seed, the same samples for every shift tried (the power then rises with the
// shift, and a bisection finds the shift as a multiple of sigma). Beyond 100 rounds, Pitman's
// asymptotic relative efficiency of the signed-rank test against the t-test under normal data,
// 3/pi, gives the shift (z + z_power) sigma / sqrt(3 rounds / pi) (Lehmann 1975,
// "Nonparametrics", sec. 4.2; Noether 1955). Under normal noise, at 16 rounds and a level of
// 1 - 0.05/72, it shows 1.4 sigma beyond the bar where the median sequence (DetectableRatioAbove)
// shows 2.2 sigma, because a fixed number of rounds looked at once spends no confidence on the
// looks before it. nullopt when no count
// of rounds above the bar could show it (k = 0). Throws StatsError as DetectableRatioAbove.
std::optional<double> SignedRankDetectableRatioAbove(double sigma, int rounds, double bar, double confidence,
                                                     double power = 0.8);

// The same below `bar`: the ratio exp(mu) < bar shown below it with probability `power`.
std::optional<double> DetectableRatioBelow(double sigma, int rounds, double bar, double confidence, double power = 0.8);

// 1.4826 x MAD of the log-ratios: the normal-consistent robust scale. n < 2 throws StatsError.
double RobustScale(std::span<const double> log_ratios);

// About how many rounds a median sequence at `confidence` takes to show a true shift of
// `log_shift` (> 0, log units) beyond its bar when the per-round log-ratios are
// Normal(bar + shift, sigma): stats::TrialsToExclude at the share of rounds that then fall on
// the bar's wrong side, Phi(-log_shift / sigma) (the "about N rounds" of rounds_needed, a
// typical count rather than an 80%-power one). nullopt when more than `cap` rounds would be
// needed. sigma = 0: the fewest rounds any series resolves in. Throws StatsError for sigma < 0
// or not finite, log_shift <= 0, confidence outside (0, 1).
std::optional<int> RoundsToShowShift(double sigma, double log_shift, double confidence, int cap = 1000000);

// What a win-rate check (the proportion sequence of rounds the candidate won,
// stats::ProportionSequence) could have seen in `rounds` rounds: the smallest speed-up whose
// win probability Phi(log(speed-up) / sigma) (the same normal model of per-round log-ratios)
// reaches, with probability `power`, the fewest wins of `rounds` that lift the sequence's low
// end to `bar`. Returns that speed-up (a ratio, e.g. 1.07); 1 when sigma is 0 (any speed-up
// wins every round); nullopt when no count of wins in `rounds` clears the bar at this level
// (too few rounds, or a bar of 1). Throws StatsError for sigma < 0 or not finite, bar outside
// [0, 1], rounds < 0, confidence or power outside (0, 1).
std::optional<double> DetectableWinSpeedup(double sigma, int rounds, double bar, double confidence, double power = 0.8);

// About how many rounds a win-rate check takes to show `bar` met when the candidate is truly
// exp(log_speedup) faster: TrialsToExclude at the win share Phi(log_speedup / sigma). nullopt
// beyond `cap` or when that share does not exceed the bar.
std::optional<int> RoundsToShowWins(double sigma, double log_speedup, double bar, double confidence, int cap = 1000000);

// What a check that reads a two-sided interval (a sweep's cost exponent or scaling
// efficiency) could have seen: treating the estimate as Normal with standard error
// se = (half-width on the side facing the bar) / z, z = Phi^-1((1 + level) / 2), an interval of
// that width shows the figure beyond `bar` with probability `power` once the true figure lies
// (z + Phi^-1(power)) x se beyond it: the usual power of a z-test (Cohen 1988, ch. 2). Returns
// that figure, above the bar when `above`, below it otherwise. For a confidence sequence
// (wider than a fixed-n interval at the same level) se is overstated, so the figure is
// conservative. A degenerate interval (zero width) gives the bar itself. Throws StatsError for
// ends that are not finite or out of order, or level or power outside (0, 1).
double DetectableBeyondInterval(double estimate, double low, double high, double level, double bar, bool above,
                                double power = 0.8);

}  // namespace pe::stats
