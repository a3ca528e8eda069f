#include "stats/change_points.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "stats/error.h"

namespace pe::stats {
namespace {

std::vector<std::size_t> Indices(const std::vector<ChangePoint>& points) {
  std::vector<std::size_t> out;
  for (const auto& p : points) out.push_back(p.index);
  return out;
}

// Every segmentation with segments of at least `m` values, by brute force over subsets.
double ExhaustiveOptimum(const std::vector<double>& x, std::size_t m, double penalty) {
  const std::size_t n = x.size();
  double best = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << (n - 1)); ++mask) {
    std::vector<std::size_t> starts;
    for (std::size_t i = 1; i < n; ++i) {
      if (mask & (1u << (i - 1))) starts.push_back(i);
    }
    bool ok = true;
    std::size_t begin = 0;
    for (std::size_t s : starts) {
      ok = ok && s - begin >= m;
      begin = s;
    }
    ok = ok && n - begin >= m;
    if (ok) best = std::min(best, SegmentationCost(x, starts, penalty));
  }
  return best;
}

TEST(ChangePointsTest, PeltFindsTheExactOptimumOfThePenalisedCost) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> x;
    double level = 0;
    for (int i = 0; i < 12; ++i) {
      if (rng() % 4 == 0) level += 3 * noise(rng);  // shifts of every size, at random places
      x.push_back(level + noise(rng));
    }
    for (std::size_t m : {1u, 2u, 3u}) {
      const auto points = ChangePoints(x, m);
      const auto starts = Indices(points);
      const double penalty = ChangePointPenalty(x);
      EXPECT_NEAR(SegmentationCost(x, starts, penalty), ExhaustiveOptimum(x, m, penalty), 1e-9)
          << "trial " << trial << " m " << m;
    }
  }
}

TEST(ChangePointsTest, OneShiftInNoisyRunsIsFoundWithTheLevelsEitherSide) {
  std::vector<double> x = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.01,
                           1.31, 1.29, 1.30, 1.32, 1.28, 1.30, 1.31, 1.29, 1.30, 1.30};
  const auto points = ChangePoints(x);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].index, 10u);
  EXPECT_NEAR(points[0].before, 1.001, 1e-9);
  EXPECT_NEAR(points[0].after, 1.30, 1e-9);
}

TEST(ChangePointsTest, TwoShiftsAreBothFound) {
  std::vector<double> x;
  for (int i = 0; i < 8; ++i) x.push_back(5 + 0.05 * ((i * 7) % 3 - 1));
  for (int i = 0; i < 8; ++i) x.push_back(7 + 0.05 * ((i * 5) % 3 - 1));
  for (int i = 0; i < 8; ++i) x.push_back(6 + 0.05 * ((i * 11) % 3 - 1));
  EXPECT_EQ(Indices(ChangePoints(x)), (std::vector<std::size_t>{8, 16}));
}

TEST(ChangePointsTest, ExactCountsWithOneStepGiveOneChangePoint) {
  // Instruction counts do not vary: the robust sigma is 0 and the floor takes over.
  const std::vector<double> x = {4644092, 4644092, 4644092, 4644092, 4644092, 6900070, 6900070, 6900070, 6900070};
  EXPECT_EQ(Indices(ChangePoints(x)), (std::vector<std::size_t>{5}));
}

TEST(ChangePointsTest, NoiseAloneConstantsAndTinySeriesHaveNone) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1, 0.02);
  std::vector<double> x;
  for (int i = 0; i < 60; ++i) x.push_back(noise(rng));
  EXPECT_TRUE(ChangePoints(x).empty());
  EXPECT_TRUE(ChangePoints(std::vector<double>(10, 3.0)).empty());
  EXPECT_TRUE(ChangePoints(std::vector<double>{1, 9, 1}).empty());  // fewer than 2 x min_segment
  EXPECT_TRUE(ChangePoints(std::vector<double>{}).empty());
  EXPECT_EQ(ChangePointPenalty(std::vector<double>{2}), 0);
  EXPECT_EQ(ChangePointPenalty(std::vector<double>{2, 3}), 0);  // one difference: no spread to estimate
}

TEST(ChangePointsTest, ARunningMedianRemovesOneOutlierButKeepsAStep) {
  const std::vector<double> spike = {1, 1.01, 0.99, 1, 5, 1, 1.01, 0.99, 1, 1};
  const auto cut = Indices(ChangePoints(spike));  // the model alone cuts the spike out
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_TRUE(cut[0] <= 4 && 4 < cut[1]) << cut[0] << " " << cut[1];
  EXPECT_TRUE(ChangePoints(RunningMedian3(spike), 2, ChangePointPenalty(spike)).empty());
  EXPECT_TRUE(ChangePoints(spike, 2, 0).empty());  // no penalty given: none found
  const std::vector<double> step = {1, 1.01, 0.99, 1, 1.3, 1.31, 1.29, 1.3};
  EXPECT_EQ(RunningMedian3(step), (std::vector<double>{1, 1, 1, 1, 1.3, 1.3, 1.3, 1.3}));
  EXPECT_EQ(Indices(ChangePoints(RunningMedian3(step), 2, ChangePointPenalty(step))), (std::vector<std::size_t>{4}));
  EXPECT_EQ(RunningMedian3(std::vector<double>{3, 1}), (std::vector<double>{3, 1}));
}

TEST(ChangePointsTest, NonFiniteInputThrows) {
  EXPECT_THROW(ChangePoints(std::vector<double>{1, NAN, 2, 3}), StatsError);
  EXPECT_THROW(RunningMedian3(std::vector<double>{1, INFINITY, 2}), StatsError);
}

}  // namespace
}  // namespace pe::stats
