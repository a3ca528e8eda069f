#include "stats/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::stats {

namespace {

// Sum of squared deviations from the mean of x[s, t), from prefix sums of x and x^2.
class SegmentCost {
 public:
  explicit SegmentCost(std::span<const double> x) : sum_(x.size() + 1, 0), squares_(x.size() + 1, 0) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      sum_[i + 1] = sum_[i] + x[i];
      squares_[i + 1] = squares_[i] + x[i] * x[i];
    }
  }
  double operator()(std::size_t s, std::size_t t) const {
    const double n = static_cast<double>(t - s);
    const double sum = sum_[t] - sum_[s];
    return std::max(0.0, squares_[t] - squares_[s] - sum * sum / n);  // rounding can dip below 0
  }
  double Mean(std::size_t s, std::size_t t) const { return (sum_[t] - sum_[s]) / static_cast<double>(t - s); }

 private:
  std::vector<double> sum_, squares_;
};

}  // namespace

double ChangePointPenalty(std::span<const double> x) {
  RequireFinite("ChangePointPenalty", x);
  if (x.size() < 2) return 0;
  std::vector<double> differences;
  for (std::size_t i = 1; i < x.size(); ++i) differences.push_back(x[i] - x[i - 1]);
  double sigma = 1.4826 * MedianAbsoluteDeviation(differences) / std::sqrt(2.0);
  if (sigma == 0 && differences.size() >= 2) sigma = StandardDeviation(differences) / std::sqrt(2.0);
  return 2 * sigma * sigma * std::log(static_cast<double>(x.size()));
}

std::vector<double> RunningMedian3(std::span<const double> x) {
  RequireFinite("RunningMedian3", x);
  std::vector<double> out(x.begin(), x.end());
  for (std::size_t i = 1; i + 1 < x.size(); ++i) {
    out[i] = std::max(std::min(x[i - 1], x[i]), std::min(std::max(x[i - 1], x[i]), x[i + 1]));
  }
  return out;
}

double SegmentationCost(std::span<const double> x, std::span<const std::size_t> starts, double penalty) {
  const SegmentCost cost(x);
  double total = 0;
  std::size_t begin = 0;
  for (std::size_t start : starts) {
    total += cost(begin, start) + penalty;
    begin = start;
  }
  return total + cost(begin, x.size());
}

std::vector<ChangePoint> ChangePoints(std::span<const double> x, std::size_t min_segment) {
  RequireFinite("ChangePoints", x);
  return ChangePoints(x, min_segment, ChangePointPenalty(x));
}

std::vector<ChangePoint> ChangePoints(std::span<const double> x, std::size_t min_segment, double penalty) {
  RequireFinite("ChangePoints", x);
  const std::size_t n = x.size();
  const std::size_t m = std::max<std::size_t>(min_segment, 1);
  if (n < 2 * m) return {};
  const double beta = penalty;
  if (!(beta > 0)) return {};  // constant (and zero) series: nothing shifts
  const SegmentCost cost(x);
  const double inf = std::numeric_limits<double>::infinity();
  // best[t]: the least penalised cost of x[0, t); last[t]: where its final segment starts.
  std::vector<double> best(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;
  std::vector<std::size_t> candidates;  // segment starts still worth trying
  // PELT's pruning (Killick et al. 2012, theorem 3.1, K = 0 for this cost): a start s whose cost
  // up to t already exceeds the optimum at t can never begin the last segment of an optimal
  // segmentation ending at T, because a change at t would be cheaper; but only for T >= t + m,
  // where [t, T) is long enough to be a segment. So starts found at t leave at t + m.
  std::vector<std::vector<std::size_t>> prune_at(n + 1);
  for (std::size_t t = m; t <= n; ++t) {
    if (best[t - m] != inf) candidates.push_back(t - m);  // admissible once a whole segment fits
    std::erase_if(candidates, [&](std::size_t s) {
      return std::find(prune_at[t].begin(), prune_at[t].end(), s) != prune_at[t].end();
    });
    for (std::size_t s : candidates) {
      const double value = best[s] + cost(s, t) + beta;
      if (value < best[t]) {
        best[t] = value;
        last[t] = s;
      }
    }
    if (t + m <= n) {
      for (std::size_t s : candidates) {
        if (best[s] + cost(s, t) > best[t]) prune_at[t + m].push_back(s);
      }
    }
  }
  std::vector<std::size_t> starts;
  for (std::size_t t = n; last[t] > 0; t = last[t]) starts.push_back(last[t]);
  std::reverse(starts.begin(), starts.end());
  std::vector<ChangePoint> out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : starts[i - 1];
    const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : n;
    out.push_back({starts[i], cost.Mean(begin, starts[i]), cost.Mean(starts[i], end)});
  }
  return out;
}

}  // namespace pe::stats
