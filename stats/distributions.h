// Probability distributions the tests and intervals in stats/ need, written here so the
// library depends on nothing but the standard library and Eigen. Internal to stats/ in
// spirit, but public so tests can check them against SciPy directly.
//
// Accuracy: the normal functions use std::erfc (tails accurate to a few ulp); the
// quantile refines Abramowitz & Stegun 26.2.23 with Halley steps to full precision.
// The Student t functions use the regularized incomplete beta (continued fraction,
// modified Lentz), accurate to about 1e-13 relative. Discrete distributions are exact
// counts wherever the counts fit a double's 53-bit mantissa.
#pragma once

#include <cstdint>
#include <vector>

namespace pe::stats {

// Standard normal P(Z <= z) and P(Z > z); each is accurate in its own tail.
double NormalCdf(double z);
double NormalSf(double z);

// Inverse of NormalCdf. p = 0 gives -inf and p = 1 gives +inf; p outside [0, 1] or
// NaN throws StatsError.
double NormalQuantile(double p);

// Regularized incomplete beta I_x(a, b) for a, b > 0 and x in [0, 1].
double RegularizedIncompleteBeta(double x, double a, double b);

// Student t with `dof` > 0 degrees of freedom: P(T <= t) and its inverse for p in (0, 1).
double StudentTCdf(double t, double dof);
double StudentTQuantile(double p, double dof);

// P(X <= k) for X ~ Binomial(n, 1/2): the null distribution of the sign test.
// k < 0 gives 0, k >= n gives 1.
double BinomialHalfCdf(int k, int n);

// Null distribution of the Wilcoxon signed-rank statistic T+ for n untied, nonzero
// differences: element t is P(T+ = t), t = 0 .. n(n+1)/2. Exact for n <= 1000 would need
// big integers; counts here are exact doubles up to n = 50 (2^50 subsets), which is the
// largest n stats/ asks for. n < 0 or n > 50 throws StatsError.
std::vector<double> WilcoxonSignedRankPmf(int n);

// Null distribution of the Mann-Whitney U statistic for untied samples of sizes n1 and
// n2: element u is P(U = u), u = 0 .. n1 n2. Built from the Gaussian binomial
// coefficient [n1 + n2 choose n1]_q one factor at a time; counts stay exact integers
// while C(n1 + n2, n1) < 2^53, and MannWhitneyExactFits says when that holds.
std::vector<double> MannWhitneyUPmf(int n1, int n2);
bool MannWhitneyExactFits(int n1, int n2);

}  // namespace pe::stats
