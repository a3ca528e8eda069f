#include "stats/scaling_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "stats/distributions.h"
#include "stats/error.h"

namespace pe::stats {

namespace {

struct LinearPart {
  double a = 0;
  double b = 0;
  double rss = 0;
};

// Least squares of t on [1, u^k] for fixed k. Column-pivoted QR copes with the rank
// deficient design at k = 0.
LinearPart FitLinear(const Eigen::VectorXd& u, const Eigen::VectorXd& t, double k) {
  Eigen::MatrixXd design(u.size(), 2);
  design.col(0).setOnes();
  design.col(1) = u.array().pow(k).matrix();
  const Eigen::Vector2d coef = design.colPivHouseholderQr().solve(t);
  return LinearPart{coef(0), coef(1), (design * coef - t).squaredNorm()};
}

double Rss(const Eigen::VectorXd& u, const Eigen::VectorXd& t, double a, double b, double k) {
  return (t.array() - a - b * u.array().pow(k)).matrix().squaredNorm();
}

Eigen::MatrixXd Jacobian(const Eigen::VectorXd& u, double b, double k) {
  Eigen::MatrixXd jacobian(u.size(), 3);
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    const double power = std::pow(u(i), k);
    jacobian(i, 0) = 1.0;
    jacobian(i, 1) = power;
    jacobian(i, 2) = b * power * std::log(u(i));
  }
  return jacobian;
}

// The model's parameters on u = n / n_max, and their residual sum of squares.
struct Parameters {
  double a = 0;
  double b = 0;
  double k = 0;
  double rss = 0;
};

void RequireFitInput(std::span<const double> n, std::span<const double> time, double confidence) {
  RequireFinite("FitScaling", n);
  RequireFinite("FitScaling", time);
  if (n.size() != time.size()) {
    throw StatsError(fmt::format("FitScaling: {} scale points but {} times", n.size(), time.size()));
  }
  RequireAtLeast("FitScaling", n, 3);
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw StatsError(fmt::format("FitScaling: confidence {} is outside (0, 1)", confidence));
  }
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!(n[i] > 0.0)) {
      throw StatsError(fmt::format("FitScaling: scale at index {} is {}, expected > 0", i, n[i]));
    }
  }
  if (std::set<double>(n.begin(), n.end()).size() < 3) {
    throw StatsError("FitScaling: needs at least 3 distinct scale points");
  }
}

// The grid over k in [-1, 4], offset so that k = 0 (a constant model) is never a grid point:
// the k of the least profile RSS, and the grid's step.
constexpr double kGridLow = -1.0;
constexpr double kGridStep = 0.05;
constexpr int kGridPoints = 100;

double BestGridK(const Eigen::VectorXd& u, const Eigen::VectorXd& t) {
  double best_k = kGridLow + kGridStep / 2;
  double best_rss = FitLinear(u, t, best_k).rss;
  for (int i = 1; i < kGridPoints; ++i) {
    const double k = kGridLow + kGridStep / 2 + i * kGridStep;
    const double rss = FitLinear(u, t, k).rss;
    if (rss < best_rss) {
      best_rss = rss;
      best_k = k;
    }
  }
  return best_k;
}

// Golden-section search on the profile RSS within one grid step either side of `k`.
double GoldenSectionK(const Eigen::VectorXd& u, const Eigen::VectorXd& t, double k) {
  const double inv_phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = k - kGridStep;
  double hi = k + kGridStep;
  double x1 = hi - inv_phi * (hi - lo);
  double x2 = lo + inv_phi * (hi - lo);
  double f1 = FitLinear(u, t, x1).rss;
  double f2 = FitLinear(u, t, x2).rss;
  for (int i = 0; i < 100 && hi - lo > 1e-12; ++i) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - inv_phi * (hi - lo);
      f1 = FitLinear(u, t, x1).rss;
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + inv_phi * (hi - lo);
      f2 = FitLinear(u, t, x2).rss;
    }
  }
  return (lo + hi) / 2;
}

// Gauss-Newton polish on (a, b, k) from the linear fit at `k`; a step is kept only when it
// lowers the RSS.
Parameters GaussNewton(const Eigen::VectorXd& u, const Eigen::VectorXd& t, double k) {
  const LinearPart linear = FitLinear(u, t, k);
  Parameters p{linear.a, linear.b, k, Rss(u, t, linear.a, linear.b, k)};
  const Eigen::Index m = u.size();
  for (int i = 0; i < 20; ++i) {
    const Eigen::MatrixXd jacobian = Jacobian(u, p.b, p.k);
    Eigen::VectorXd residual(m);
    for (Eigen::Index j = 0; j < m; ++j) residual(j) = t(j) - p.a - p.b * std::pow(u(j), p.k);
    const Eigen::VectorXd step = jacobian.colPivHouseholderQr().solve(residual);
    if (!step.allFinite()) break;
    const double next_rss = Rss(u, t, p.a + step(0), p.b + step(1), p.k + step(2));
    if (!(next_rss < p.rss)) break;
    p.a += step(0);
    p.b += step(1);
    p.k += step(2);
    p.rss = next_rss;
  }
  return p;
}

// The Wald interval of k (see the header), or the note why there is none.
void IntervalOfK(const Eigen::VectorXd& u, const Parameters& p, double confidence, ScalingFit& fit) {
  const Eigen::Index dof = u.size() - 3;
  if (dof < 1) {
    fit.note = "3 points fit exactly: no interval for k";
    return;
  }
  const Eigen::MatrixXd jacobian = Jacobian(u, p.b, p.k);
  const Eigen::Matrix3d normal = jacobian.transpose() * jacobian;
  Eigen::FullPivLU<Eigen::Matrix3d> lu(normal);
  if (!lu.isInvertible()) {
    fit.note = "the fit is degenerate (b = 0?): no interval for k";
    return;
  }
  const double variance = p.rss / static_cast<double>(dof) * lu.inverse()(2, 2);
  fit.k_standard_error = std::sqrt(std::max(variance, 0.0));
  const double t_quantile = StudentTQuantile((1.0 + confidence) / 2.0, static_cast<double>(dof));
  fit.has_interval = true;
  fit.k_low = p.k - t_quantile * fit.k_standard_error;
  fit.k_high = p.k + t_quantile * fit.k_standard_error;
}

}  // namespace

ScalingFit FitScaling(std::span<const double> n, std::span<const double> time, double confidence) {
  RequireFitInput(n, time, confidence);
  const auto m = static_cast<Eigen::Index>(n.size());
  const double n_max = *std::max_element(n.begin(), n.end());
  Eigen::VectorXd u(m);
  Eigen::VectorXd t(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    u(i) = n[i] / n_max;
    t(i) = time[i];
  }
  ScalingFit fit;
  fit.points = static_cast<int>(m);
  fit.level = confidence;
  if ((t.array() == t(0)).all()) {
    fit.a = t(0);
    fit.note = "all times are equal: no dependence on n, k is undetermined";
    return fit;
  }
  const Parameters p = GaussNewton(u, t, GoldenSectionK(u, t, BestGridK(u, t)));
  fit.a = p.a;
  fit.b = p.b / std::pow(n_max, p.k);  // back from u = n / n_max to n
  fit.k = p.k;
  fit.residual_sum_of_squares = p.rss;
  IntervalOfK(u, p, confidence, fit);
  return fit;
}

}  // namespace pe::stats
