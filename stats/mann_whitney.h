// Mann-Whitney U test (Mann & Whitney 1947; Hollander & Wolfe ch. 4), unpaired and
// two-sided, for comparing two saved runs whose rounds do not pair.
//
// U1 = R1 - n1(n1 + 1)/2 where R1 is the rank sum of x among the pooled average ranks;
// U2 = n1 n2 - U1. The p-value uses U = max(U1, U2):
// - Exact: P(U' >= U) from the null distribution of U for untied samples, doubled and
//   capped at 1 (scipy.stats.mannwhitneyu method="exact").
// - Normal: z = (U - n1 n2/2 - 0.5) / sigma with the continuity correction and the tie
//   correction sigma^2 = n1 n2/12 ((n + 1) - sum(t^3 - t)/(n(n - 1))), p = 2 P(Z > z)
//   (scipy method="asymptotic", use_continuity=True).
// kAuto uses exact when there are no ties and C(n1 + n2, n1) < 2^53 (the counts stay
// exact), which covers samples up to about 25 each; asv, for comparison, calls a
// difference significant at p < 0.002 with this test.
// Either sample empty throws StatsError. All values tied (sigma = 0) gives p = 1.
#pragma once

#include <span>

namespace pe::stats {

enum class MannWhitneyMethod { kAuto, kExact, kNormal };

struct MannWhitneyResult {
  double u1 = 0;  // U of x, scipy's `statistic`
  double u2 = 0;  // U of y
  bool ties = false;
  bool exact = false;
  double z = 0;  // normal approximation only
  double p_value = 1;
  // U1 / (n1 n2): the probability that a value of x exceeds one of y (ties half), the
  // "common-language effect size" (McGraw & Wong 1992).
  double probability_x_greater = 0.5;
};

// kExact falls back to the normal approximation (and says so in `exact`) when there are
// ties or the counts would not be exact.
MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y,
                               MannWhitneyMethod method = MannWhitneyMethod::kAuto);

}  // namespace pe::stats
