// Scaling fit: time ~ a + b n^k over scale points (n_i, t_i), by nonlinear least squares.
//
// Method: for fixed k the model is linear in (a, b), so k minimises the profile residual
// sum of squares (variable projection; Golub & Pereyra 1973): a grid over k in [-1, 4]
// brackets the minimum, golden-section search narrows it, and Gauss-Newton steps on all
// three parameters polish it. The interval for k is the Wald interval
// k +- t_{m-3, (1+confidence)/2} se(k), se from s^2 (J^T J)^-1 with s^2 = RSS / (m - 3),
// as scipy.optimize.curve_fit reports it (absolute_sigma=False). n is divided by its
// maximum internally so n^k stays well scaled; k and its interval do not depend on that.
//
// Small inputs: fewer than 3 points, fewer than 3 distinct n, n <= 0, NaN/inf or unequal
// lengths throw StatsError. Exactly 3 points fit exactly and have no interval
// (`has_interval` false). All times tied give b = 0 and an undetermined k: `has_interval`
// is false and the note says so.
#pragma once

#include <span>
#include <string>

namespace pe::stats {

struct ScalingFit {
  double a = 0;
  double b = 0;
  double k = 0;
  bool has_interval = false;
  double k_low = 0;
  double k_high = 0;
  double k_standard_error = 0;
  double level = 0.95;
  double residual_sum_of_squares = 0;
  int points = 0;
  std::string note;
};

ScalingFit FitScaling(std::span<const double> n, std::span<const double> time, double confidence = 0.95);

}  // namespace pe::stats
