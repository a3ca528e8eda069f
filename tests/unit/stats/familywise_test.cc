// Family-wise confidence (stats/familywise.h), proven by simulation: thousands of A/A suites
// of 30 workloads x 2 measures, each check's confidence sequence for the median log-ratio
// looked at after every round (optional stopping), under several noise shapes.
#include "stats/familywise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "stats/error.h"
#include "stats/random.h"
#include "stats/sequential.h"

namespace pe::stats {
namespace {

TEST(FamilyWise, SplitsAlphaAcrossChecks) {
  EXPECT_DOUBLE_EQ(PerCheckConfidence(0.95, 1), 0.95);
  EXPECT_DOUBLE_EQ(PerCheckConfidence(0.95, 0), 0.95);
  EXPECT_NEAR(PerCheckConfidence(0.95, 10), 0.995, 1e-12);
  EXPECT_NEAR(PerCheckConfidence(0.95, 19), 1 - 0.05 / 19, 1e-12);  // 99.74%
  EXPECT_NEAR(PerCheckConfidence(0.99, 100), 0.9999, 1e-12);
  EXPECT_THROW(PerCheckConfidence(1.0, 3), StatsError);
  EXPECT_THROW(PerCheckConfidence(0.0, 3), StatsError);
  EXPECT_THROW(PerCheckConfidence(0.95, -1), StatsError);
}

enum class Noise { kNormal, kLaplace, kCauchy };

double Uniform(Random& r) {  // in (0, 1)
  return (static_cast<double>(r.Below(std::uint64_t{1} << 53)) + 0.5) / static_cast<double>(std::uint64_t{1} << 53);
}

// One round's log-ratio of a contender against itself: median 0, scale 0.03.
double Draw(Random& r, Noise noise) {
  constexpr double kScale = 0.03;
  const double u = Uniform(r);
  switch (noise) {
    case Noise::kNormal:
      return kScale * std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * Uniform(r));
    case Noise::kLaplace:
      return u < 0.5 ? kScale * std::log(2 * u) : -kScale * std::log(2 * (1 - u));
    case Noise::kCauchy:
      return kScale * std::tan(std::numbers::pi * (u - 0.5));
  }
  return 0;
}

// The share of simulated A/A suites in which any check's sequence excluded the true median
// (0) at any round up to max_rounds: a false regression or a false speed-up, caught by a
// run that stops at the first look that shows one.
double FamilyFalseAlarmRate(int suites, int checks, int max_rounds, double per_check, Noise noise, std::uint64_t seed) {
  Random r(seed);
  int alarmed = 0;
  std::vector<double> x;
  for (int s = 0; s < suites; ++s) {
    bool any = false;
    for (int k = 0; k < checks && !any; ++k) {
      x.clear();
      for (int n = 1; n <= max_rounds && !any; ++n) {
        x.push_back(Draw(r, noise));
        const MedianBounds b = MedianSequence(x, per_check);
        any = b.low > 0 || b.high < 0;
      }
    }
    if (any) ++alarmed;
  }
  return static_cast<double>(alarmed) / suites;
}

struct Case {
  Noise noise;
  std::uint64_t seed;
};

class FamilyWiseSimulation : public ::testing::TestWithParam<Case> {};

// 30 workloads x 2 gated measures, 40 rounds, 1000 suites. The bar is 1 - confidence plus
// three binomial standard deviations; the corrected rate must stay under it, and the same
// simulation at the uncorrected per-check level must exceed it (so this test can fail).
TEST_P(FamilyWiseSimulation, AnyFalseAlarmStaysBelowAlphaOnlyWhenCorrected) {
  constexpr int kSuites = 1000, kChecks = 60, kMaxRounds = 40;
  constexpr double kFamily = 0.95;
  const double alpha = 1 - kFamily;
  const double bar = alpha + 3 * std::sqrt(alpha * (1 - alpha) / kSuites);
  const double corrected = FamilyFalseAlarmRate(kSuites, kChecks, kMaxRounds, PerCheckConfidence(kFamily, kChecks),
                                                GetParam().noise, GetParam().seed);
  EXPECT_LE(corrected, bar);
  const double uncorrected =
      FamilyFalseAlarmRate(kSuites / 4, kChecks, kMaxRounds, kFamily, GetParam().noise, GetParam().seed + 1);
  std::printf("any false alarm: %.3f corrected, %.3f uncorrected (bar %.3f)\n", corrected, uncorrected, bar);
  EXPECT_GT(uncorrected, bar) << "the uncorrected per-check level should fail the family-wise bar";
}

std::string ShapeName(const ::testing::TestParamInfo<Case>& info) {
  switch (info.param.noise) {
    case Noise::kNormal:
      return "Normal";
    case Noise::kLaplace:
      return "Laplace";
    case Noise::kCauchy:
      return "Cauchy";
  }
  return "Unknown";
}

INSTANTIATE_TEST_SUITE_P(Shapes, FamilyWiseSimulation,
                         ::testing::Values(Case{Noise::kNormal, 11}, Case{Noise::kLaplace, 12},
                                           Case{Noise::kCauchy, 13}),
                         ShapeName);

}  // namespace
}  // namespace pe::stats
