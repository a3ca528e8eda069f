// AnalyzeSweeps' scaling fit reads every measured round's time at each scale point, not the
// medians, so how many points it needs for an interval is counted in times: docs/sweeps.md
// says three scale points have one once a point has two rounds (issue 42 found the page saying
// three points never do, above a run that printed intervals for three).
#include "engine/analysis/sweeps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace pe::analysis {
namespace {

// One contender, a sweep over scale 1, 2 and 4, `rounds` measured rounds at each point (a
// warm-up too, which the fit must not read); time about n^2, a little noise per round.
model::RunResult ThreeScalePoints(int rounds) {
  model::RunResult result;
  result.settings.scale = 1;
  result.contenders.push_back({.name = "a"});
  result.sweeps.push_back({.name = "grow", .axes = {"scale"}});
  for (const char* n : {"1", "2", "4"}) {
    model::WorkloadResult w;
    w.name = std::string("grow[scale=") + n + "]";
    w.sweep = "grow";
    w.point = {{"scale", n}};
    const double x = std::stod(n);
    w.samples.push_back({.contender = "a", .round = 0, .warmup = true, .wall_s = 99});
    for (int r = 1; r <= rounds; ++r) {
      w.samples.push_back({.contender = "a", .round = r, .wall_s = 0.01 + 0.1 * x * x * (1 + 0.01 * r)});
    }
    result.workloads.push_back(std::move(w));
  }
  return result;
}

TEST(SweepFit, ThreeScalePointsOfOneRoundEachHaveNoInterval) {
  model::RunResult result = ThreeScalePoints(1);
  AnalyzeSweeps(result);
  ASSERT_EQ(result.sweeps[0].fits.size(), 1u);
  const model::ScalingFit& fit = result.sweeps[0].fits[0];
  EXPECT_TRUE(std::isfinite(fit.exponent));
  EXPECT_TRUE(std::isnan(fit.low) && std::isnan(fit.high));
  EXPECT_EQ(fit.note, "3 points fit exactly: no interval for k");
}

TEST(SweepFit, ThreeScalePointsOfTwoRoundsEachHaveAnInterval) {
  model::RunResult result = ThreeScalePoints(2);
  AnalyzeSweeps(result);
  ASSERT_EQ(result.sweeps[0].fits.size(), 1u);
  const model::ScalingFit& fit = result.sweeps[0].fits[0];
  EXPECT_NEAR(fit.exponent, 2.0, 0.1);
  EXPECT_TRUE(std::isfinite(fit.low) && std::isfinite(fit.high)) << fit.note;
  EXPECT_LT(fit.low, fit.exponent);
  EXPECT_GT(fit.high, fit.exponent);
  EXPECT_EQ(fit.note, "");
}

}  // namespace
}  // namespace pe::analysis
