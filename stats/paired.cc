#include "stats/paired.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"

namespace pe::stats {

namespace {

void RequireSameLength(const char* function, std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) {
    throw StatsError(fmt::format("{}: baseline has {} rounds but candidate has {}", function, a.size(), b.size()));
  }
}

void RequirePositive(const char* function, const char* side, std::span<const double> x) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0.0)) {
      throw StatsError(fmt::format("{}: {} value at index {} is {}, expected > 0", function, side, i, x[i]));
    }
  }
}

void RequireConfidence(const char* function, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw StatsError(fmt::format("{}: confidence {} is outside (0, 1)", function, confidence));
  }
}

}  // namespace

std::vector<double> Ratios(std::span<const double> baseline, std::span<const double> candidate) {
  RequireSameLength("Ratios", baseline, candidate);
  RequireFinite("Ratios", baseline);
  RequireFinite("Ratios", candidate);
  RequirePositive("Ratios", "baseline", baseline);
  std::vector<double> ratios(baseline.size());
  for (std::size_t i = 0; i < ratios.size(); ++i) ratios[i] = candidate[i] / baseline[i];
  return ratios;
}

std::vector<double> LogRatios(std::span<const double> baseline, std::span<const double> candidate) {
  RequireSameLength("LogRatios", baseline, candidate);
  RequireFinite("LogRatios", baseline);
  RequireFinite("LogRatios", candidate);
  RequirePositive("LogRatios", "baseline", baseline);
  RequirePositive("LogRatios", "candidate", candidate);
  std::vector<double> logs(baseline.size());
  for (std::size_t i = 0; i < logs.size(); ++i) logs[i] = std::log(candidate[i] / baseline[i]);
  return logs;
}

SignTestResult SignTest(int wins, int losses, int ties) {
  if (wins < 0 || losses < 0 || ties < 0) {
    throw StatsError(fmt::format("SignTest: negative count (wins={}, losses={}, ties={})", wins, losses, ties));
  }
  SignTestResult result{wins, losses, ties, 1.0};
  const int trials = wins + losses;
  if (trials == 0) return result;
  const int smaller = std::min(wins, losses);
  result.p_value = std::min(1.0, 2.0 * BinomialHalfCdf(smaller, trials));
  return result;
}

SignTestResult SignTestPaired(std::span<const double> baseline, std::span<const double> candidate) {
  RequireSameLength("SignTestPaired", baseline, candidate);
  RequireFinite("SignTestPaired", baseline);
  RequireFinite("SignTestPaired", candidate);
  int wins = 0;
  int losses = 0;
  int ties = 0;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (candidate[i] < baseline[i]) {
      ++wins;
    } else if (candidate[i] > baseline[i]) {
      ++losses;
    } else {
      ++ties;
    }
  }
  return SignTest(wins, losses, ties);
}

std::vector<double> AverageRanks(std::span<const double> x, double* tie_term) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  double ties = 0.0;
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && x[order[end]] == x[order[start]]) ++end;
    // Positions start..end-1 (0-based) share the mean 1-based rank.
    const double rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t i = start; i < end; ++i) ranks[order[i]] = rank;
    const double t = static_cast<double>(end - start);
    ties += t * t * t - t;
    start = end;
  }
  if (tie_term != nullptr) *tie_term = ties;
  return ranks;
}

WilcoxonResult WilcoxonSignedRank(std::span<const double> d, WilcoxonMethod method) {
  RequireFinite("WilcoxonSignedRank", d);
  RequireAtLeast("WilcoxonSignedRank", d, 1);
  WilcoxonResult result;
  std::vector<double> nonzero;
  std::vector<double> magnitude;
  for (double v : d) {
    if (v == 0.0) {
      ++result.zeros;
    } else {
      nonzero.push_back(v);
      magnitude.push_back(std::fabs(v));
    }
  }
  result.n = static_cast<int>(nonzero.size());
  if (result.n == 0) return result;

  double tie_term = 0.0;
  const std::vector<double> ranks = AverageRanks(magnitude, &tie_term);
  result.ties = tie_term > 0.0;
  for (std::size_t i = 0; i < nonzero.size(); ++i) {
    (nonzero[i] > 0 ? result.r_plus : result.r_minus) += ranks[i];
  }
  result.statistic = std::min(result.r_plus, result.r_minus);

  const double n = result.n;
  result.exact = method != WilcoxonMethod::kNormal && !result.ties && result.n <= 50;
  if (result.exact) {
    const std::vector<double> pmf = WilcoxonSignedRankPmf(result.n);
    const auto r = static_cast<std::size_t>(result.r_plus);
    const std::size_t max_sum = pmf.size() - 1;
    if (max_sum % 2 == 0 && r == max_sum / 2) {
      result.p_value = 1.0;
    } else {
      double below = 0.0;  // P(T+ <= r)
      for (std::size_t t = 0; t <= r; ++t) below += pmf[t];
      double above = 0.0;  // P(T+ >= r)
      for (std::size_t t = r; t <= max_sum; ++t) above += pmf[t];
      result.p_value = std::min(1.0, 2.0 * std::min(below, above));
    }
    return result;
  }
  const double mean = n * (n + 1.0) / 4.0;
  const double variance = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term / 48.0;
  result.z = (result.statistic - mean) / std::sqrt(variance);
  result.p_value = std::min(1.0, 2.0 * NormalSf(std::fabs(result.z)));
  return result;
}

WalshOrder WalshOrderFor(std::size_t n, double confidence) {
  RequireConfidence("WalshOrderFor", confidence);
  WalshOrder out;
  const double half_alpha = (1.0 - confidence) / 2.0;
  const std::size_t m = n * (n + 1) / 2;
  std::size_t k = 0;  // 1-based order statistic of the lower end; 0 means none qualifies
  if (n == 0) {
    out.achieved_level = 0;
  } else if (n <= 50) {
    out.exact = true;
    const std::vector<double> pmf = WilcoxonSignedRankPmf(static_cast<int>(n));
    double below = 0.0;  // P(T+ <= k - 1) for the candidate k = t + 1
    double achieved_tail = 0.0;
    for (std::size_t t = 0; t < pmf.size(); ++t) {
      below += pmf[t];
      // Guard against rounding in the running sum deciding a boundary case.
      if (below > half_alpha * (1.0 + 1e-12)) break;
      k = t + 1;
      achieved_tail = below;
    }
    out.achieved_level = k == 0 ? 1.0 - 2.0 * pmf[0] : 1.0 - 2.0 * achieved_tail;
  } else {
    out.exact = false;
    const double nn = static_cast<double>(n);
    const double sigma = std::sqrt(nn * (nn + 1.0) * (2.0 * nn + 1.0) / 24.0);
    const double z = NormalQuantile(1.0 - half_alpha);
    const double center = static_cast<double>(m) / 2.0;
    const double raw = std::floor(center + 0.5 - z * sigma);
    k = raw < 1.0 ? 0 : static_cast<std::size_t>(raw);
    const double tail = NormalCdf((static_cast<double>(k == 0 ? 1 : k) - 0.5 - center) / sigma);
    out.achieved_level = 1.0 - 2.0 * tail;
  }
  out.k = k;
  return out;
}

HodgesLehmannResult HodgesLehmann(std::span<const double> d, double confidence) {
  RequireFinite("HodgesLehmann", d);
  RequireAtLeast("HodgesLehmann", d, 1);
  RequireConfidence("HodgesLehmann", confidence);
  const std::size_t n = d.size();
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back(d[i] + (d[j] - d[i]) / 2.0);
  }
  std::sort(walsh.begin(), walsh.end());
  const std::size_t m = walsh.size();

  HodgesLehmannResult result;
  result.level = confidence;
  result.estimate = QuantileOfSorted(walsh, 0.5);
  const WalshOrder order = WalshOrderFor(n, confidence);
  result.exact = order.exact;
  result.achieved_level = order.achieved_level;
  std::size_t k = order.k;
  if (k == 0) {
    result.level_reached = false;
    k = 1;
  }
  result.low = walsh[k - 1];
  result.high = walsh[m - k];
  return result;
}

}  // namespace pe::stats
