#include "stats/power.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"

namespace pe::stats {

PowerEstimate RoundsForEffect(double sigma, double effect, double confidence, double power) {
  if (!(effect > 0.0 && std::isfinite(effect))) {
    throw StatsError(fmt::format("RoundsForEffect: effect {} must be > 0", effect));
  }
  if (!(confidence > 0.0 && confidence < 1.0) || !(power > 0.0 && power < 1.0)) {
    throw StatsError(fmt::format("RoundsForEffect: confidence {} and power {} must lie in (0, 1)", confidence, power));
  }
  if (!(sigma >= 0.0 && std::isfinite(sigma))) {
    throw StatsError(fmt::format("RoundsForEffect: sigma {} must be finite and >= 0", sigma));
  }
  PowerEstimate estimate{sigma, effect, confidence, power, 2, false};
  if (sigma == 0.0) return estimate;
  const double ratio = sigma / std::log1p(effect);
  const double upper = 1.0 - (1.0 - confidence) / 2.0;
  auto rounds_from = [&](double quantile_sum) {
    const double n = std::ceil(quantile_sum * quantile_sum * ratio * ratio);
    if (!(n <= kMaxRounds)) {
      estimate.capped = true;
      return kMaxRounds;
    }
    return std::max(2, static_cast<int>(n));
  };
  // The answer is the smallest n that the t-based formula, evaluated at n - 1 degrees of
  // freedom, says is enough. The normal answer is a lower bound, so count up from it; the
  // two differ by a few rounds at most.
  int n = rounds_from(NormalQuantile(upper) + NormalQuantile(power));
  while (!estimate.capped) {
    const double dof = n - 1.0;
    if (rounds_from(StudentTQuantile(upper, dof) + StudentTQuantile(power, dof)) <= n) break;
    ++n;
  }
  estimate.rounds = estimate.capped ? kMaxRounds : n;
  return estimate;
}

PowerEstimate RoundsToResolve(std::span<const double> log_ratios, double effect, double confidence, double power) {
  RequireFinite("RoundsToResolve", log_ratios);
  RequireAtLeast("RoundsToResolve", log_ratios, 2);
  return RoundsForEffect(StandardDeviation(log_ratios), effect, confidence, power);
}

}  // namespace pe::stats
