#include "stats/distributions.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "stats/error.h"

namespace pe::stats {

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double NormalSf(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

double NormalQuantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw StatsError(fmt::format("NormalQuantile: probability {} is outside [0, 1]", p));
  }
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;  // exactly, so a symmetric bootstrap gives z0 = 0, not 1e-18
  // Work in the lower tail, where NormalCdf keeps full relative precision, and mirror.
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;
  // Abramowitz & Stegun 26.2.23 (error < 4.5e-4) as the starting point.
  const double t = std::sqrt(-2.0 * std::log(q));
  double x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                       (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
  // Halley's method on f(x) = Phi(x) - q converges cubically from there.
  for (int i = 0; i < 4; ++i) {
    const double f = NormalCdf(x) - q;
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    const double step = f / density;
    x -= step / (1.0 + 0.5 * x * step);
  }
  return upper ? -x : x;
}

namespace {

// Continued fraction for I_x(a, b) (DLMF 8.17.22), evaluated with the modified Lentz
// method; converges fast for x < (a + 1) / (a + b + 2).
double IncompleteBetaFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  double f = kTiny;
  double c = f;
  double d = 0.0;
  for (int j = 1; j < 10000; ++j) {
    double numerator;
    if (j == 1) {
      numerator = 1.0;
    } else {
      const int m = (j - 1) / 2;
      if ((j - 1) % 2 == 1) {  // d_{2m+1}
        numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      } else {  // d_{2m}
        numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      }
    }
    d = 1.0 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return f;
}

}  // namespace

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (!(a > 0 && b > 0 && x >= 0 && x <= 1)) {
    throw StatsError(fmt::format("RegularizedIncompleteBeta: bad arguments x={} a={} b={}", x, a, b));
  }
  if (x == 0.0 || x == 1.0) return x;
  const double log_front = a * std::log(x) + b * std::log1p(-x) - std::lgamma(a) - std::lgamma(b) + std::lgamma(a + b);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return std::exp(log_front) * IncompleteBetaFraction(x, a, b) / a;
  }
  return 1.0 - std::exp(log_front) * IncompleteBetaFraction(1.0 - x, b, a) / b;
}

double StudentTCdf(double t, double dof) {
  if (!(dof > 0) || std::isnan(t)) {
    throw StatsError(fmt::format("StudentTCdf: bad arguments t={} dof={}", t, dof));
  }
  const double tail = 0.5 * RegularizedIncompleteBeta(dof / (dof + t * t), dof / 2.0, 0.5);
  return t > 0 ? 1.0 - tail : tail;
}

double StudentTQuantile(double p, double dof) {
  if (!(p > 0.0 && p < 1.0) || !(dof > 0)) {
    throw StatsError(fmt::format("StudentTQuantile: bad arguments p={} dof={}", p, dof));
  }
  if (p == 0.5) return 0.0;
  // Bracket, then bisect: called a handful of times per analysis, so plain and safe wins.
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;  // solve Cdf(-x) = q for x > 0
  double lo = 0.0;
  double hi = 1.0;
  while (StudentTCdf(-hi, dof) > q) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = lo + (hi - lo) / 2.0;
    if (StudentTCdf(-mid, dof) > q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double x = lo + (hi - lo) / 2.0;
  return upper ? x : -x;
}

double BinomialHalfCdf(int k, int n) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (n > 1000) return RegularizedIncompleteBeta(0.5, n - k, k + 1.0);
  // pmf(i + 1) = pmf(i) (n - i) / (i + 1), from pmf(0) = 2^-n (no underflow for n <= 1000).
  double pmf = std::ldexp(1.0, -n);
  double sum = pmf;
  for (int i = 0; i < k; ++i) {
    pmf = pmf * (n - i) / (i + 1);
    sum += pmf;
  }
  return sum;
}

std::vector<double> WilcoxonSignedRankPmf(int n) {
  if (n < 0 || n > 50) {
    throw StatsError(fmt::format("WilcoxonSignedRankPmf: n={} outside 0..50", n));
  }
  const int max_sum = n * (n + 1) / 2;
  // counts[s]: subsets of {1..i} whose sum is s; adding rank i either skips or takes it.
  std::vector<double> counts(max_sum + 1, 0.0);
  counts[0] = 1.0;
  for (int rank = 1; rank <= n; ++rank) {
    const int reach = rank * (rank + 1) / 2;
    for (int s = reach; s >= rank; --s) counts[s] += counts[s - rank];
  }
  const double total = std::ldexp(1.0, n);
  for (double& c : counts) c /= total;
  return counts;
}

bool MannWhitneyExactFits(int n1, int n2) {
  if (n1 < 0 || n2 < 0) return false;
  // C(n1 + n2, n1) < 2^53, computed in floating point with margin.
  const double log_choose = std::lgamma(n1 + n2 + 1.0) - std::lgamma(n1 + 1.0) - std::lgamma(n2 + 1.0);
  return log_choose < 53.0 * std::numbers::ln2 - 1e-6;
}

std::vector<double> MannWhitneyUPmf(int n1, int n2) {
  if (!MannWhitneyExactFits(n1, n2)) {
    throw StatsError(fmt::format("MannWhitneyUPmf: C({}, {}) is too large for exact counts", n1 + n2, n1));
  }
  const int max_u = n1 * n2;
  // Invariant: after step i, counts holds the coefficients of [n2 + i choose i]_q, the
  // number of arrangements of i items among n2 others with U = u. Each step multiplies by
  // (1 - q^(n2 + i)) and divides by (1 - q^i); both keep every value an exact integer.
  std::vector<double> counts(max_u + 1, 0.0);
  counts[0] = 1.0;
  for (int i = 1; i <= n1; ++i) {
    const int top = n2 + i;
    for (int u = max_u; u >= top; --u) counts[u] -= counts[u - top];
    for (int u = i; u <= max_u; ++u) counts[u] += counts[u - i];
  }
  double total = 0.0;
  for (double c : counts) total += c;
  for (double& c : counts) c /= total;
  return counts;
}

}  // namespace pe::stats
