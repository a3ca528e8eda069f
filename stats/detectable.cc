#include "stats/detectable.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/sequential.h"

namespace pe::stats {
namespace {

// P(Binomial(n, q) <= k), by direct summation in logs (n is a count of rounds).
double BinomialCdf(int k, int n, double q) {
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

// j(n): the order statistic the median sequence's ends are after n rounds.
int Order(int rounds, double confidence) {
  std::vector<double> x(rounds);
  for (int i = 0; i < rounds; ++i) x[i] = i;
  return MedianSequence(x, confidence).order;
}

// The shift (in log units, >= 0) beyond the bar shown with probability `power`.
std::optional<double> DetectableShift(double sigma, int rounds, double confidence, double power) {
  if (!(sigma >= 0 && std::isfinite(sigma))) throw StatsError(fmt::format("Detectable: sigma {} is not valid", sigma));
  if (!(confidence > 0 && confidence < 1) || !(power > 0 && power < 1)) {
    throw StatsError(fmt::format("Detectable: confidence {} and power {} must lie in (0, 1)", confidence, power));
  }
  if (rounds < 0) throw StatsError(fmt::format("Detectable: {} rounds is negative", rounds));
  const int j = rounds == 0 ? 0 : Order(rounds, confidence);
  if (j <= 0) return std::nullopt;
  if (sigma == 0) return 0.0;
  // The largest q (share of rounds on the bar's wrong side) still shown with `power`.
  double low = 0, high = 0.5;
  for (int it = 0; it < 100; ++it) {
    const double mid = (low + high) / 2;
    (BinomialCdf(j - 1, rounds, mid) >= power ? low : high) = mid;
  }
  return -sigma * NormalQuantile(low);
}

void CheckBar(double bar) {
  if (!(bar > 0 && std::isfinite(bar))) throw StatsError(fmt::format("Detectable: bar {} is not positive", bar));
}

}  // namespace

std::optional<double> DetectableRatioAbove(double sigma, int rounds, double bar, double confidence, double power) {
  CheckBar(bar);
  const std::optional<double> shift = DetectableShift(sigma, rounds, confidence, power);
  if (!shift) return std::nullopt;
  return bar * std::exp(*shift);
}

std::optional<double> DetectableRatioBelow(double sigma, int rounds, double bar, double confidence, double power) {
  CheckBar(bar);
  const std::optional<double> shift = DetectableShift(sigma, rounds, confidence, power);
  if (!shift) return std::nullopt;
  return bar * std::exp(-*shift);
}

double RobustScale(std::span<const double> log_ratios) {
  if (log_ratios.size() < 2) throw StatsError("RobustScale: needs at least 2 log-ratios");
  return 1.4826 * MedianAbsoluteDeviation(log_ratios);
}

}  // namespace pe::stats
