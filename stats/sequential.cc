#include "stats/sequential.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "stats/error.h"

namespace pe::stats {

namespace {

// The mixing prior Beta(1/2, 1/2): it resolves a unanimous series sooner than the uniform
// prior (7 rounds at 95% against 8) at little cost in the middle.
constexpr double kPriorA = 0.5;
constexpr double kPriorB = 0.5;

double LogBeta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }

double Threshold(const char* function, double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw StatsError(std::string(function) + ": confidence must lie in (0, 1)");
  }
  return -std::log(1 - confidence);
}

// k log p with 0 log 0 = 0, so p = 0 or 1 are allowed where they carry no successes.
double XLogY(double x, double y) { return x == 0 ? 0 : x * std::log(y); }

// Where log M crosses `threshold` between `inside` (below it) and `outside` (at or above).
double Crossing(int k, int n, double inside, double outside, double threshold) {
  for (int i = 0; i < 200 && std::abs(outside - inside) > 1e-15; ++i) {
    const double mid = 0.5 * (inside + outside);
    (LogMixtureMartingale(k, n, mid) < threshold ? inside : outside) = mid;
  }
  return inside;
}

}  // namespace

double LogMixtureMartingale(int successes, int trials, double p) {
  if (trials < 0 || successes < 0 || successes > trials) {
    throw StatsError("LogMixtureMartingale: successes must lie in [0, trials]");
  }
  if (!(p >= 0 && p <= 1)) throw StatsError("LogMixtureMartingale: p must lie in [0, 1]");
  const double k = successes, n = trials;
  return LogBeta(kPriorA + k, kPriorB + n - k) - LogBeta(kPriorA, kPriorB) - XLogY(k, p) - XLogY(n - k, 1 - p);
}

ProportionBounds ProportionSequence(int successes, int trials, double confidence) {
  const double threshold = Threshold("ProportionSequence", confidence);
  if (trials < 0 || successes < 0 || successes > trials) {
    throw StatsError("ProportionSequence: successes must lie in [0, trials]");
  }
  ProportionBounds b;
  if (trials == 0) return b;
  // log M is convex in p with its minimum at k / n, so the set below the threshold is an
  // interval around k / n (never empty: M at its minimum is below 1 for these priors).
  const double centre = static_cast<double>(successes) / trials;
  b.low =
      LogMixtureMartingale(successes, trials, 0) < threshold ? 0 : Crossing(successes, trials, centre, 0, threshold);
  b.high =
      LogMixtureMartingale(successes, trials, 1) < threshold ? 1 : Crossing(successes, trials, centre, 1, threshold);
  return b;
}

MedianBounds MedianSequence(std::span<const double> x, double confidence) {
  const double threshold = Threshold("MedianSequence", confidence);
  RequireFinite("MedianSequence", x);
  MedianBounds b;
  b.low = -std::numeric_limits<double>::infinity();
  b.high = std::numeric_limits<double>::infinity();
  const int n = static_cast<int>(x.size());
  // j: how many values may lie below the median before p = 1/2 leaves the sequence.
  int j = 0;
  while (j <= n / 2 && LogMixtureMartingale(j, n, 0.5) >= threshold) ++j;
  if (j == 0 || j > n / 2) return b;  // nothing excluded yet
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  b.order = j;
  b.low = sorted[j - 1];
  b.high = sorted[n - j];
  return b;
}

std::optional<int> MinTrialsToExclude(double p0, double confidence, int cap) {
  const double threshold = Threshold("MinTrialsToExclude", confidence);
  if (!(p0 >= 0 && p0 < 1)) return std::nullopt;
  for (int n = 1; n <= cap; ++n) {
    if (LogMixtureMartingale(n, n, p0) >= threshold) return n;
  }
  return std::nullopt;
}

std::optional<int> TrialsToExclude(double fraction, double p0, double confidence, int cap) {
  const double threshold = Threshold("TrialsToExclude", confidence);
  if (!(fraction >= 0 && fraction <= 1) || !(p0 >= 0 && p0 <= 1)) {
    throw StatsError("TrialsToExclude: fraction and p0 must lie in [0, 1]");
  }
  if (std::abs(fraction - p0) < 1e-12) return std::nullopt;
  auto excluded = [&](int n) {
    const int k = std::clamp(static_cast<int>(std::lround(fraction * n)), 0, n);
    return LogMixtureMartingale(k, n, p0) >= threshold;
  };
  // Doubling, then bisection: the evidence grows about linearly in n for a fixed fraction.
  int high = 1;
  while (!excluded(high)) {
    if (high > cap / 2) {
      if (excluded(cap)) {
        high = cap;
        break;
      }
      return std::nullopt;
    }
    high *= 2;
  }
  int low = high / 2;  // not excluded (or 0)
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (excluded(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace pe::stats
