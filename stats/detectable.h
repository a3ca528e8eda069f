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

// The same below `bar`: the ratio exp(mu) < bar shown below it with probability `power`.
std::optional<double> DetectableRatioBelow(double sigma, int rounds, double bar, double confidence, double power = 0.8);

// 1.4826 x MAD of the log-ratios: the normal-consistent robust scale. n < 2 throws StatsError.
double RobustScale(std::span<const double> log_ratios);

}  // namespace pe::stats
