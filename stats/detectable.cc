#include "stats/detectable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <numbers>
#include <tuple>
#include <vector>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/paired.h"
#include "stats/random.h"
#include "stats/sequential.h"

namespace pe::stats {
namespace {

// log C(n, i) for i = 0..k, the coefficients of BinomialCdf's terms. They depend on n and k
// alone, so a bisection over q computes them once, not three lgamma per term in each of its
// steps (every check's power figure bisects 100 times, in every verdict and report).
std::vector<double> LogChoose(int k, int n) {
  std::vector<double> out;
  for (int i = 0; i <= k; ++i) out.push_back(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0));
  return out;
}

// P(Binomial(n, q) <= k), by direct summation in logs (n is a count of rounds); `log_choose`
// is LogChoose(k, n). Each term is summed in the same order as log C(n, i) + i log q +
// (n - i) log(1 - q) written out, so the result is the same to the last bit.
double BinomialCdf(int k, int n, double q, const std::vector<double>& log_choose) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const double log_q = std::log(q);
  const double log_not_q = std::log1p(-q);
  double total = 0;
  for (int i = 0; i <= k; ++i) total += std::exp(log_choose[i] + i * log_q + (n - i) * log_not_q);
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
  const std::vector<double> log_choose = LogChoose(j - 1, rounds);
  double low = 0, high = 0.5;
  for (int it = 0; it < 100; ++it) {
    const double mid = (low + high) / 2;
    (BinomialCdf(j - 1, rounds, mid, log_choose) >= power ? low : high) = mid;
  }
  return -sigma * NormalQuantile(low);
}

void CheckBar(double bar) {
  if (!(bar > 0 && std::isfinite(bar))) throw StatsError(fmt::format("Detectable: bar {} is not positive", bar));
}

// T+ of z + shift: the sum of the ranks of |z_i + shift| over the positive values.
int SignedRankSum(const std::vector<double>& z, double shift, std::vector<double>& scratch) {
  scratch.resize(z.size());
  for (size_t i = 0; i < z.size(); ++i) scratch[i] = z[i] + shift;
  std::sort(scratch.begin(), scratch.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  int sum = 0;
  for (size_t i = 0; i < scratch.size(); ++i) sum += scratch[i] > 0 ? static_cast<int>(i) + 1 : 0;
  return sum;
}

constexpr int kSimulatedMaxRounds = 100;
constexpr int kSimulatedSamples = 4000;
constexpr std::uint64_t kSimulationSeed = 20261206;

// The shift, in units of sigma, that T+ >= `critical` reaches with probability `power`.
double SimulatedSignedRankShift(int rounds, int critical, double power) {
  Random random(kSimulationSeed);
  std::vector<std::vector<double>> samples(kSimulatedSamples, std::vector<double>(rounds));
  for (auto& sample : samples) {
    for (double& v : sample) {
      // A uniform on (0, 1) from 53 random bits, through the normal quantile: no
      // implementation-defined distribution (stats/random.h).
      const double u = (static_cast<double>(random.Below(std::uint64_t{1} << 53)) + 0.5) / 9007199254740992.0;
      v = NormalQuantile(u);
    }
  }
  std::vector<double> scratch;
  auto reached = [&](double shift) {
    int hits = 0;
    for (const auto& sample : samples) hits += SignedRankSum(sample, shift, scratch) >= critical ? 1 : 0;
    return static_cast<double>(hits) / kSimulatedSamples >= power;
  };
  double low = 0, high = 1;
  while (!reached(high)) high *= 2;
  for (int it = 0; it < 40; ++it) {
    const double mid = (low + high) / 2;
    (reached(mid) ? high : low) = mid;
  }
  return high;
}

// SimulatedSignedRankShift is the same for the same arguments, and every check of every
// verdict asks for it: computed once per (rounds, k, power).
double SignedRankShift(int rounds, std::size_t k, double confidence, double power) {
  if (rounds > kSimulatedMaxRounds) {
    const double z = NormalQuantile(1 - (1 - confidence) / 2);
    return (z + NormalQuantile(power)) / std::sqrt(3.0 * rounds / std::numbers::pi);
  }
  static std::mutex mutex;
  static std::map<std::tuple<int, std::size_t, double>, double> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(rounds, k, power);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const int m = rounds * (rounds + 1) / 2;
  const double shift = SimulatedSignedRankShift(rounds, m + 1 - static_cast<int>(k), power);
  cache.emplace(key, shift);
  return shift;
}

}  // namespace

std::optional<double> DetectableRatioAbove(double sigma, int rounds, double bar, double confidence, double power) {
  CheckBar(bar);
  const std::optional<double> shift = DetectableShift(sigma, rounds, confidence, power);
  if (!shift) return std::nullopt;
  return bar * std::exp(*shift);
}

std::optional<double> SignedRankDetectableRatioAbove(double sigma, int rounds, double bar, double confidence,
                                                     double power) {
  CheckBar(bar);
  if (!(sigma >= 0 && std::isfinite(sigma))) throw StatsError(fmt::format("Detectable: sigma {} is not valid", sigma));
  if (!(confidence > 0 && confidence < 1) || !(power > 0 && power < 1)) {
    throw StatsError(fmt::format("Detectable: confidence {} and power {} must lie in (0, 1)", confidence, power));
  }
  if (rounds < 0) throw StatsError(fmt::format("Detectable: {} rounds is negative", rounds));
  if (rounds == 0) return std::nullopt;
  const WalshOrder order = WalshOrderFor(static_cast<std::size_t>(rounds), confidence);
  if (order.k == 0) return std::nullopt;
  if (sigma == 0) return bar;
  return bar * std::exp(sigma * SignedRankShift(rounds, order.k, confidence, power));
}

std::optional<double> DetectableRatioBelow(double sigma, int rounds, double bar, double confidence, double power) {
  CheckBar(bar);
  const std::optional<double> shift = DetectableShift(sigma, rounds, confidence, power);
  if (!shift) return std::nullopt;
  return bar * std::exp(-*shift);
}

std::optional<int> RoundsToShowShift(double sigma, double log_shift, double confidence, int cap) {
  if (!(sigma >= 0 && std::isfinite(sigma)) || !(log_shift > 0 && std::isfinite(log_shift)) ||
      !(confidence > 0 && confidence < 1)) {
    throw StatsError(fmt::format("RoundsToShowShift: sigma {} >= 0, shift {} > 0 and confidence {} in (0, 1)", sigma,
                                 log_shift, confidence));
  }
  if (sigma == 0) return MinTrialsToExclude(0.5, confidence, cap);
  return TrialsToExclude(NormalCdf(-log_shift / sigma), 0.5, confidence, cap);
}

std::optional<double> DetectableWinSpeedup(double sigma, int rounds, double bar, double confidence, double power) {
  if (!(sigma >= 0 && std::isfinite(sigma)) || !(bar >= 0 && bar <= 1) || rounds < 0 ||
      !(confidence > 0 && confidence < 1) || !(power > 0 && power < 1)) {
    throw StatsError(fmt::format(
        "DetectableWinSpeedup: sigma {} >= 0, bar {} in [0, 1], rounds {} >= 0, confidence {} and power {} in (0, 1)",
        sigma, bar, rounds, confidence, power));
  }
  // The fewest wins of `rounds` that put the bar below the sequence's low end.
  std::optional<int> fewest;
  for (int wins = 0; wins <= rounds && !fewest; ++wins) {
    if (ProportionSequence(wins, rounds, confidence).low >= bar) fewest = wins;
  }
  if (!fewest || rounds == 0) return std::nullopt;
  if (sigma == 0) return 1.0;
  // The smallest win probability q with P(Binomial(n, q) >= fewest) >= power.
  const std::vector<double> log_choose = LogChoose(*fewest - 1, rounds);
  double low = 0, high = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    (1 - BinomialCdf(*fewest - 1, rounds, mid, log_choose) >= power ? high : low) = mid;
  }
  return std::exp(sigma * NormalQuantile(std::clamp(high, 1e-12, 1 - 1e-12)));
}

std::optional<int> RoundsToShowWins(double sigma, double log_speedup, double bar, double confidence, int cap) {
  if (!(sigma >= 0 && std::isfinite(sigma)) || !std::isfinite(log_speedup) || !(bar >= 0 && bar <= 1) ||
      !(confidence > 0 && confidence < 1)) {
    throw StatsError(fmt::format("RoundsToShowWins: sigma {} >= 0, bar {} in [0, 1], confidence {} in (0, 1)", sigma,
                                 bar, confidence));
  }
  if (bar <= 0) return 1;  // a bar of 0 holds from the first round
  const double share = sigma > 0 ? NormalCdf(log_speedup / sigma) : log_speedup > 0 ? 1.0 : 0.0;
  if (!(share > bar)) return std::nullopt;
  return TrialsToExclude(share, bar, confidence, cap);
}

double DetectableBeyondInterval(double estimate, double low, double high, double level, double bar, bool above,
                                double power) {
  if (!std::isfinite(estimate) || !std::isfinite(low) || !std::isfinite(high) || !(low <= estimate) ||
      !(estimate <= high) || !std::isfinite(bar) || !(level > 0 && level < 1) || !(power > 0 && power < 1)) {
    throw StatsError(fmt::format("DetectableBeyondInterval: interval {} [{}, {}] at {} with power {} is not valid",
                                 estimate, low, high, level, power));
  }
  const double z = NormalQuantile((1 + level) / 2);
  // To show the figure above the bar the interval's low end must clear it: its lower half-width.
  const double half = above ? estimate - low : high - estimate;
  const double shift = (z + NormalQuantile(power)) * half / z;
  return above ? bar + shift : bar - shift;
}

double RobustScale(std::span<const double> log_ratios) {
  if (log_ratios.size() < 2) throw StatsError("RobustScale: needs at least 2 log-ratios");
  return 1.4826 * MedianAbsoluteDeviation(log_ratios);
}

}  // namespace pe::stats
