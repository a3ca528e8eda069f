// Outlier classification. Outliers are reported, never dropped: every function here
// returns indices into the input so reports can show them and the caller decides.
//
// - Tukey fences (Tukey 1977, Exploratory Data Analysis): with type-7 quartiles Q1, Q3
//   and IQR = Q3 - Q1, values outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] are mild outliers and
//   values outside [Q1 - 3 IQR, Q3 + 3 IQR] severe ones (the severe set is a subset of
//   the mild set, as in hyperfine and Criterion.rs).
// - Modified z-score (Iglewicz & Hoaglin 1993, How to Detect and Handle Outliers):
//   M_i = 0.6745 (x_i - median) / MAD, outlier when |M_i| > 3.5.
//
// Small samples: n = 0 throws StatsError; n = 1 and n = 2 and all ties report no outliers
// (the fences collapse onto the data and every value sits on them). When MAD = 0 but the
// values are not all tied, the modified z-score is undefined; following common practice
// (IBM SPSS) it then scales by 1.253314 x the mean absolute deviation from the median,
// and `mad_was_zero` says so.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace pe::stats {

struct TukeyFences {
  double q1 = 0;
  double q3 = 0;
  double iqr = 0;
  double low_inner = 0;             // Q1 - 1.5 IQR
  double high_inner = 0;            // Q3 + 1.5 IQR
  double low_outer = 0;             // Q1 - 3 IQR
  double high_outer = 0;            // Q3 + 3 IQR
  std::vector<std::size_t> mild;    // indices outside the inner fences (severe included)
  std::vector<std::size_t> severe;  // indices outside the outer fences
};

TukeyFences ClassifyTukey(std::span<const double> x);

struct ModifiedZScores {
  double median = 0;
  double mad = 0;
  bool mad_was_zero = false;          // the mean-absolute-deviation fallback was used
  std::vector<double> scores;         // one per input value, same order
  std::vector<std::size_t> outliers;  // indices with |score| > threshold
};

ModifiedZScores ClassifyModifiedZ(std::span<const double> x, double threshold = 3.5);

// Both classifications of one sample, as reports show them.
struct OutlierReport {
  std::size_t n = 0;
  TukeyFences tukey;
  ModifiedZScores modified_z;
};

OutlierReport ClassifyOutliers(std::span<const double> x);

}  // namespace pe::stats
