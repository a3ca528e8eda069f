#include "stats/descriptive.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stats/error.h"

namespace pe::stats {

std::vector<double> Sorted(std::span<const double> x) {
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

double QuantileOfSorted(std::span<const double> sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted[sorted.size() - 1];
  const double frac = h - static_cast<double>(lo);
  // Written as a + f (b - a) so that equal neighbours give exactly that value.
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double MedianInPlace(std::span<double> scratch) {
  const std::size_t n = scratch.size();
  const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(scratch.begin(), mid, scratch.end());
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  // After nth_element everything before mid is <= upper; the lower middle is their max.
  const double lower = *std::max_element(scratch.begin(), mid);
  return lower + (upper - lower) / 2;
}

double Median(std::span<const double> x) {
  RequireFinite("Median", x);
  RequireAtLeast("Median", x, 1);
  std::vector<double> scratch(x.begin(), x.end());
  return MedianInPlace(scratch);
}

namespace {

void RequireProbability(const char* function, double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw StatsError(fmt::format("{}: probability {} is outside [0, 1]", function, p));
  }
}

}  // namespace

double Quantile(std::span<const double> x, double p) {
  RequireFinite("Quantile", x);
  RequireAtLeast("Quantile", x, 1);
  RequireProbability("Quantile", p);
  return QuantileOfSorted(Sorted(x), p);
}

std::vector<double> Quantiles(std::span<const double> x, std::span<const double> p) {
  RequireFinite("Quantiles", x);
  RequireAtLeast("Quantiles", x, 1);
  for (double each : p) RequireProbability("Quantiles", each);
  const std::vector<double> sorted = Sorted(x);
  std::vector<double> result;
  result.reserve(p.size());
  for (double each : p) result.push_back(QuantileOfSorted(sorted, each));
  return result;
}

double MedianAbsoluteDeviation(std::span<const double> x) {
  RequireFinite("MedianAbsoluteDeviation", x);
  RequireAtLeast("MedianAbsoluteDeviation", x, 1);
  std::vector<double> scratch(x.begin(), x.end());
  const double center = MedianInPlace(scratch);
  for (std::size_t i = 0; i < x.size(); ++i) scratch[i] = std::fabs(x[i] - center);
  return MedianInPlace(scratch);
}

double InterquartileRange(std::span<const double> x) {
  RequireFinite("InterquartileRange", x);
  RequireAtLeast("InterquartileRange", x, 1);
  const std::vector<double> sorted = Sorted(x);
  return QuantileOfSorted(sorted, 0.75) - QuantileOfSorted(sorted, 0.25);
}

double Mean(std::span<const double> x) {
  RequireFinite("Mean", x);
  RequireAtLeast("Mean", x, 1);
  double mean = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mean += (x[i] - mean) / static_cast<double>(i + 1);
  return mean;
}

double StandardDeviation(std::span<const double> x) {
  RequireFinite("StandardDeviation", x);
  RequireAtLeast("StandardDeviation", x, 2);
  // Corrected two-pass algorithm (Chan, Golub & LeVeque 1983): the second sum cancels
  // the rounding error of the mean, so a large common offset (1e9 s) costs no accuracy.
  const double n = static_cast<double>(x.size());
  double sum = 0;
  for (double v : x) sum += v;
  const double mean = sum / n;
  double squares = 0;
  double deviations = 0;
  for (double v : x) {
    squares += (v - mean) * (v - mean);
    deviations += v - mean;
  }
  return std::sqrt((squares - deviations * deviations / n) / (n - 1));
}

}  // namespace pe::stats
