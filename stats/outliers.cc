#include "stats/outliers.h"

#include <cmath>

#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::stats {

TukeyFences ClassifyTukey(std::span<const double> x) {
  RequireFinite("ClassifyTukey", x);
  RequireAtLeast("ClassifyTukey", x, 1);
  const std::vector<double> sorted = Sorted(x);
  TukeyFences fences;
  fences.q1 = QuantileOfSorted(sorted, 0.25);
  fences.q3 = QuantileOfSorted(sorted, 0.75);
  fences.iqr = fences.q3 - fences.q1;
  fences.low_inner = fences.q1 - 1.5 * fences.iqr;
  fences.high_inner = fences.q3 + 1.5 * fences.iqr;
  fences.low_outer = fences.q1 - 3.0 * fences.iqr;
  fences.high_outer = fences.q3 + 3.0 * fences.iqr;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < fences.low_inner || x[i] > fences.high_inner) fences.mild.push_back(i);
    if (x[i] < fences.low_outer || x[i] > fences.high_outer) fences.severe.push_back(i);
  }
  return fences;
}

ModifiedZScores ClassifyModifiedZ(std::span<const double> x, double threshold) {
  RequireFinite("ClassifyModifiedZ", x);
  RequireAtLeast("ClassifyModifiedZ", x, 1);
  ModifiedZScores result;
  result.median = Median(x);
  result.mad = MedianAbsoluteDeviation(x);
  // 0.6745 is the 0.75 quantile of the standard normal, making MAD / 0.6745 estimate sigma.
  double scale = result.mad / 0.6745;
  if (result.mad == 0.0) {
    double mean_abs = 0.0;
    for (double v : x) mean_abs += std::fabs(v - result.median);
    mean_abs /= static_cast<double>(x.size());
    result.mad_was_zero = true;
    scale = 1.253314 * mean_abs;  // sqrt(pi / 2): mean absolute deviation to sigma
  }
  result.scores.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double score = scale > 0.0 ? (x[i] - result.median) / scale : 0.0;
    result.scores.push_back(score);
    if (std::fabs(score) > threshold) result.outliers.push_back(i);
  }
  return result;
}

OutlierReport ClassifyOutliers(std::span<const double> x) {
  return OutlierReport{x.size(), ClassifyTukey(x), ClassifyModifiedZ(x)};
}

}  // namespace pe::stats
