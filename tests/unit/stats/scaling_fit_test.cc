#include "stats/scaling_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/error.h"
#include "vectors.h"

namespace pe::stats {
namespace {

using testing::Close;
using testing::Doubles;

// scipy.optimize.curve_fit is an iterative optimiser (run with tolerances of 1e-14), so
// agreement is to 1e-7 rather than to the 1e-9 of exact methods.
TEST(ScalingFitTest, MatchesCurveFitAndRecoversKnownExponents) {
  const auto vectors = testing::LoadVectors("scaling.json");
  for (const auto& c : vectors["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const ScalingFit fit = FitScaling(Doubles(c["n"]), Doubles(c["time"]));
    if (c.contains("k")) {
      EXPECT_TRUE(Close(fit.k, c["k"], 1e-7));
      EXPECT_TRUE(Close(fit.a, c["a"], 1e-7));
      EXPECT_TRUE(Close(fit.b, c["b"], 1e-7));
      ASSERT_TRUE(fit.has_interval);
      EXPECT_TRUE(Close(fit.k_low, c["k_low"], 1e-6));
      EXPECT_TRUE(Close(fit.k_high, c["k_high"], 1e-6));
      EXPECT_LT(fit.k_low, c["true_k"].get<double>() + 0.5);
      EXPECT_GT(fit.k_high, c["true_k"].get<double>() - 0.5);
    } else {  // noise-free data: the exponent itself, to near machine precision
      EXPECT_NEAR(fit.k, c["true_k"].get<double>(), 1e-9);
      EXPECT_NEAR(fit.k_high - fit.k_low, 0.0, 1e-6);
    }
  }
}

TEST(ScalingFitTest, ThreePointsFitExactlyWithoutInterval) {
  const std::vector<double> n{1, 2, 4};
  std::vector<double> t;
  for (double v : n) t.push_back(1.0 + 0.5 * v * v);
  const ScalingFit fit = FitScaling(n, t);
  EXPECT_NEAR(fit.k, 2.0, 1e-8);
  EXPECT_NEAR(fit.a, 1.0, 1e-8);
  EXPECT_NEAR(fit.b, 0.5, 1e-8);
  EXPECT_FALSE(fit.has_interval);
  EXPECT_EQ(fit.note, "3 points fit exactly: no interval for k");
}

TEST(ScalingFitTest, ConstantTimesHaveNoExponent) {
  const ScalingFit fit = FitScaling(std::vector<double>{1, 2, 3, 4}, std::vector<double>(4, 0.3));
  EXPECT_EQ(fit.a, 0.3);
  EXPECT_EQ(fit.b, 0.0);
  EXPECT_FALSE(fit.has_interval);
  EXPECT_EQ(fit.note, "all times are equal: no dependence on n, k is undetermined");
}

TEST(ScalingFitTest, RejectsTooFewOrBadPoints) {
  EXPECT_THROW(FitScaling(std::vector<double>{1, 2}, std::vector<double>{1, 2}), StatsError);
  EXPECT_THROW(FitScaling(std::vector<double>{1, 1, 2, 2}, std::vector<double>{1, 1, 2, 2}), StatsError);
  EXPECT_THROW(FitScaling(std::vector<double>{0, 1, 2}, std::vector<double>{1, 2, 3}), StatsError);
  EXPECT_THROW(FitScaling(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2}), StatsError);
  EXPECT_THROW(FitScaling(std::vector<double>{1, 2, 3}, std::vector<double>{1, std::nan(""), 3}), StatsError);
}

}  // namespace
}  // namespace pe::stats
