// Change points in a series of measurements taken one after another (a history of runs): the
// places where the mean level shifts.
//
// Method: PELT, "Pruned Exact Linear Time" (Killick, Fearnhead & Eckley 2012, "Optimal detection
// of changepoints with a linear computational cost", JASA 107(500):1590-1598). It finds the
// segmentation minimising  sum over segments of C(segment) + beta x (number of change points)
// exactly, pruning candidates that can never again be optimal. C is the normal mean-shift cost,
// the sum of squared deviations from the segment's mean; beta is the SIC/BIC penalty
// 2 sigma^2 ln n (Killick et al. section 2) with sigma estimated robustly from successive
// differences, 1.4826 x MAD(x[i+1] - x[i]) / sqrt(2), so the shifts themselves (few) and
// outliers (rare) do not inflate it (the difference-based estimator of Fryzlewicz 2014, "Wild
// binary segmentation", section 3).
//
// Tiny samples: fewer than 2 x min_segment values return no change points. A constant series
// returns none. Where the robust sigma is 0 (most successive values equal: instruction counts
// are exact) sigma falls back to the plain standard deviation of the differences over sqrt(2),
// which a single sustained shift cannot outweigh.
// NaN or infinite input throws StatsError.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace pe::stats {

struct ChangePoint {
  std::size_t index = 0;  // the first value of the new segment
  double before = 0;      // mean of the segment that ends at index - 1
  double after = 0;       // mean of the segment that starts at index
};

// Change points of `x` in increasing order; each segment has at least `min_segment` values
// (at least 1; 2 keeps a single outlier from being a segment of its own).
std::vector<ChangePoint> ChangePoints(std::span<const double> x, std::size_t min_segment = 2);

// The same with a given penalty per change point (0 or less: none found), e.g. one estimated
// from the raw series when x has been smoothed: a running median leaves runs of equal values
// whose differences would make the estimate of sigma too small.
std::vector<ChangePoint> ChangePoints(std::span<const double> x, std::size_t min_segment, double penalty);

// Tukey's running median of 3 (Tukey 1977, "Exploratory Data Analysis", ch. 7): each value
// replaced by the median of itself and its two neighbours, the ends kept. It removes a single
// outlying run, which the mean-shift model would otherwise cut out as a segment of its own,
// while keeping a step's edge where it is. n < 3 returns x unchanged.
std::vector<double> RunningMedian3(std::span<const double> x);

// The penalty ChangePoints uses for `x`: 2 sigma^2 ln n as above (0 for n < 2).
double ChangePointPenalty(std::span<const double> x);

// The penalised cost ChangePoints minimises, for a given set of change points (the first
// index of each new segment, increasing): exposed so tests can check optimality.
double SegmentationCost(std::span<const double> x, std::span<const std::size_t> starts, double penalty);

}  // namespace pe::stats
