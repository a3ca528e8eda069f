// Descriptive statistics over one sample: location (median, mean), spread (MAD, IQR,
// standard deviation) and quantiles.
//
// Conventions shared by every function here:
// - NaN or infinite input throws StatsError naming the function and the value's index.
// - An empty sample throws StatsError (there is no median of nothing); n = 1 is allowed
//   wherever the figure is defined for one value.
// - All ties are ordinary input: the spread figures are then 0.
#pragma once

#include <span>
#include <vector>

namespace pe::stats {

// Exact sample median: the middle value for odd n, the mean of the two middle values
// for even n (Hyndman & Fan 1996 type 7 at p = 0.5 agrees). n = 0 throws StatsError;
// n = 1 returns the value; n = 2 returns their mean; all ties returns the tied value.
double Median(std::span<const double> x);

// Quantile p in [0, 1] by Hyndman & Fan (1996) definition 7, the default of numpy,
// R and Excel: h = (n - 1) p, linear interpolation between the order statistics
// floor(h) and floor(h) + 1 (0-based). n = 0 or p outside [0, 1] throws StatsError;
// n = 1 returns the value for every p; p = 0 and p = 1 return min and max.
double Quantile(std::span<const double> x, double p);

// The same for several probabilities with one sort.
std::vector<double> Quantiles(std::span<const double> x, std::span<const double> p);

// Median absolute deviation from the median, unscaled (scipy.stats.median_abs_deviation
// with scale=1). Multiply by 1.4826 for a consistent estimate of a normal sigma.
// n = 0 throws; n = 1 returns 0; n = 2 returns |x0 - x1| / 2; all ties return 0.
double MedianAbsoluteDeviation(std::span<const double> x);

// Interquartile range Q3 - Q1 with type-7 quantiles (scipy.stats.iqr default).
// n = 0 throws; n = 1 returns 0; n = 2 returns |x0 - x1| / 2; all ties return 0.
double InterquartileRange(std::span<const double> x);

// Arithmetic mean. n = 0 throws; n = 1 returns the value.
double Mean(std::span<const double> x);

// Sample standard deviation with Bessel's correction (ddof = 1, numpy std(ddof=1)).
// Undefined for n < 2, which throws StatsError; n = 2 returns |x0 - x1| / sqrt(2);
// all ties return 0. Corrected two-pass sums, so a large common offset does not cancel.
double StandardDeviation(std::span<const double> x);

// Sorted copy, for callers that need several order statistics of one sample.
std::vector<double> Sorted(std::span<const double> x);

// Type-7 quantile of an already sorted, non-empty, finite sample (no checks; the
// building block the functions above and the bootstrap share).
double QuantileOfSorted(std::span<const double> sorted, double p);

// Median of `scratch`, reordering it in place with nth_element: O(n) and no allocation,
// for the bootstrap's inner loop. `scratch` must be non-empty and finite (no checks).
double MedianInPlace(std::span<double> scratch);

}  // namespace pe::stats
