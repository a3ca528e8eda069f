#include "stats/distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/error.h"
#include "vectors.h"

namespace pe::stats {
namespace {

using testing::Close;
using testing::Doubles;
using testing::kExact;

const nlohmann::json& DistributionsVectors() {
  static const nlohmann::json vectors = testing::LoadVectors("distributions.json");
  return vectors;
}

TEST(DistributionsTest, NormalCdfAndSurvivalMatchScipy) {
  for (const auto& c : DistributionsVectors()["normal"]) {
    const double z = c["z"];
    SCOPED_TRACE(z);
    // Relative in each tail: both functions keep precision where they are small.
    EXPECT_NEAR(NormalCdf(z) / c["cdf"].get<double>(), 1.0, 1e-12);
    EXPECT_NEAR(NormalSf(z) / c["sf"].get<double>(), 1.0, 1e-12);
  }
}

TEST(DistributionsTest, NormalQuantileMatchesScipy) {
  for (const auto& c : DistributionsVectors()["normal_quantile"]) {
    SCOPED_TRACE(c["p"].get<double>());
    EXPECT_TRUE(Close(NormalQuantile(c["p"]), c["q"], 1e-12));
  }
  EXPECT_EQ(NormalQuantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(NormalQuantile(1.0), std::numeric_limits<double>::infinity());
  EXPECT_THROW(NormalQuantile(1.2), StatsError);
}

TEST(DistributionsTest, IncompleteBetaMatchesScipy) {
  for (const auto& c : DistributionsVectors()["beta"]) {
    EXPECT_TRUE(Close(RegularizedIncompleteBeta(c["x"], c["a"], c["b"]), c["i"], 1e-12));
  }
}

TEST(DistributionsTest, StudentTCdfMatchesScipyRelativelyInTheTails) {
  for (const auto& c : DistributionsVectors()["t_cdf"]) {
    SCOPED_TRACE(c.dump());
    const double expected = c["cdf"];
    EXPECT_NEAR(StudentTCdf(c["t"], c["dof"]) / expected, 1.0, 1e-12);
  }
}

TEST(DistributionsTest, StudentTQuantileMatchesClosedForms) {
  for (const auto& c : DistributionsVectors()["t_quantile_closed_form"]) {
    SCOPED_TRACE(c.dump());
    EXPECT_TRUE(Close(StudentTQuantile(c["p"], c["dof"]), c["q"], 1e-12));
  }
}

// SciPy 1.10's t.ppf is itself only good to about 2e-9 (see make_vectors.py), so it gets
// a 1e-8 bound; the round trip through the CDF holds ours to 1e-12.
TEST(DistributionsTest, StudentTQuantileMatchesScipyAndInvertsTheCdf) {
  for (const auto& c : DistributionsVectors()["t_quantile"]) {
    SCOPED_TRACE(c.dump());
    const double q = StudentTQuantile(c["p"], c["dof"]);
    EXPECT_TRUE(Close(q, c["q"], 1e-8));
    EXPECT_NEAR(StudentTCdf(q, c["dof"]) / c["p"].get<double>(), 1.0, 1e-12);
  }
}

TEST(DistributionsTest, BinomialHalfCdfMatchesScipy) {
  for (const auto& c : DistributionsVectors()["binomial_half"]) {
    SCOPED_TRACE(c.dump());
    EXPECT_TRUE(Close(BinomialHalfCdf(c["k"], c["n"]), c["cdf"], kExact));
  }
  EXPECT_EQ(BinomialHalfCdf(-1, 5), 0.0);
  EXPECT_EQ(BinomialHalfCdf(5, 5), 1.0);
}

TEST(DistributionsTest, WilcoxonPmfMatchesScipyExactly) {
  for (const auto& c : DistributionsVectors()["wilcoxon_pmf"]) {
    const std::vector<double> expected = Doubles(c["pmf"]);
    const std::vector<double> pmf = WilcoxonSignedRankPmf(c["n"]);
    ASSERT_EQ(pmf.size(), expected.size());
    for (std::size_t t = 0; t < pmf.size(); ++t) EXPECT_TRUE(Close(pmf[t], expected[t], kExact));
  }
  EXPECT_THROW(WilcoxonSignedRankPmf(51), StatsError);
}

TEST(DistributionsTest, MannWhitneyPmfCountsArrangements) {
  // n1 = 2, n2 = 2: the 6 arrangements give U = 0, 1, 2, 2, 3, 4.
  const std::vector<double> pmf = MannWhitneyUPmf(2, 2);
  const std::vector<double> expected{1 / 6.0, 1 / 6.0, 2 / 6.0, 1 / 6.0, 1 / 6.0};
  ASSERT_EQ(pmf.size(), expected.size());
  for (std::size_t u = 0; u < pmf.size(); ++u) EXPECT_DOUBLE_EQ(pmf[u], expected[u]);
  // Symmetric and summing to one for a lopsided pair of sizes.
  const std::vector<double> lopsided = MannWhitneyUPmf(3, 11);
  double sum = 0;
  for (std::size_t u = 0; u < lopsided.size(); ++u) {
    sum += lopsided[u];
    EXPECT_DOUBLE_EQ(lopsided[u], lopsided[lopsided.size() - 1 - u]);
  }
  EXPECT_NEAR(sum, 1.0, 1e-15);
  EXPECT_TRUE(MannWhitneyExactFits(25, 25));
  EXPECT_FALSE(MannWhitneyExactFits(30, 30));
}

}  // namespace
}  // namespace pe::stats
