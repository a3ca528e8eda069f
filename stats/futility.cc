#include "stats/futility.h"

#include <cmath>
#include <numbers>

#include "stats/detectable.h"
#include "stats/distributions.h"
#include "stats/paired.h"

namespace pe::stats {

namespace {

constexpr double kOptimisticQuantile = 0.95;  // the one-sided level of theta_up

}  // namespace

std::optional<FutilityReading> FinalLookFutility(std::span<const double> log_ratios, double log_bar, int final_round,
                                                 double final_level) {
  const int n = static_cast<int>(log_ratios.size());
  if (n < 2 || n >= final_round) return std::nullopt;
  return FinalLookFutilityAt(HodgesLehmann(log_ratios).estimate, RobustScale(log_ratios), n, log_bar, final_round,
                             final_level);
}

std::optional<int> FutilityStopRound(double theta, double sigma, double log_bar, int final_round, double final_level) {
  for (int n = kFutilityFirstRound; n < final_round; ++n) {
    const auto reading = FinalLookFutilityAt(theta, sigma, n, log_bar, final_round, final_level);
    if (reading && reading->Futile()) return n;
  }
  return std::nullopt;
}

std::optional<FutilityReading> FinalLookFutilityAt(double theta, double sigma, int n, double log_bar, int final_round,
                                                   double final_level) {
  if (n < 2 || n >= final_round || !(final_level > 0 && final_level < 1)) return std::nullopt;
  if (!(sigma > 0) || !std::isfinite(sigma) || !std::isfinite(theta)) return std::nullopt;
  const double median_se = sigma * std::sqrt(std::numbers::pi / 2) / std::sqrt(n);
  const double hl_factor = std::sqrt(std::numbers::pi / 3);
  const double theta_up = theta + NormalQuantile(kOptimisticQuantile) * median_se;
  const int rest = final_round - n;
  const double mean = (n * theta + rest * theta_up) / final_round;
  const double sd = sigma * hl_factor * std::sqrt(static_cast<double>(rest)) / final_round;
  const double margin = NormalQuantile(1 - (1 - final_level) / 2) * sigma * hl_factor / std::sqrt(final_round);
  return FutilityReading{theta_up, NormalSf((log_bar + margin - mean) / sd)};
}

}  // namespace pe::stats
