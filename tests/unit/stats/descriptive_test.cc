#include "stats/descriptive.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "stats/error.h"
#include "vectors.h"

namespace pe::stats {
namespace {

using testing::Close;
using testing::Doubles;
using testing::kExact;

TEST(DescriptiveTest, MatchesNumpyAndScipyOnEveryReferenceSample) {
  const auto vectors = testing::LoadVectors("descriptive.json");
  for (const auto& c : vectors["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<double> x = Doubles(c["x"]);
    EXPECT_TRUE(Close(Median(x), c["median"], kExact));
    EXPECT_TRUE(Close(MedianAbsoluteDeviation(x), c["mad"], kExact));
    EXPECT_TRUE(Close(InterquartileRange(x), c["iqr"], kExact));
    EXPECT_TRUE(Close(Mean(x), c["mean"], kExact));
    if (c.contains("sd")) {
      EXPECT_TRUE(Close(StandardDeviation(x), c["sd"], kExact));
    }
    const std::vector<double> probs = Doubles(c["probs"]);
    const std::vector<double> expected = Doubles(c["quantiles"]);
    const std::vector<double> all = Quantiles(x, probs);
    for (std::size_t i = 0; i < probs.size(); ++i) {
      SCOPED_TRACE(probs[i]);
      EXPECT_TRUE(Close(Quantile(x, probs[i]), expected[i], kExact));
      EXPECT_TRUE(Close(all[i], expected[i], kExact));
    }
  }
}

TEST(DescriptiveTest, MedianOfEvenCountIsMeanOfMiddleTwo) {
  const std::vector<double> x{4, 1, 3, 2};
  EXPECT_EQ(Median(x), 2.5);
}

TEST(DescriptiveTest, SmallSamplesFollowTheDocumentedRules) {
  const std::vector<double> one{7};
  EXPECT_EQ(Median(one), 7);
  EXPECT_EQ(Quantile(one, 0.3), 7);
  EXPECT_EQ(MedianAbsoluteDeviation(one), 0);
  EXPECT_EQ(InterquartileRange(one), 0);
  EXPECT_EQ(Mean(one), 7);
  EXPECT_THROW(StandardDeviation(one), StatsError);

  const std::vector<double> two{1, 4};
  EXPECT_EQ(Median(two), 2.5);
  EXPECT_EQ(MedianAbsoluteDeviation(two), 1.5);
  EXPECT_EQ(InterquartileRange(two), 1.5);
  EXPECT_DOUBLE_EQ(StandardDeviation(two), 3 / std::sqrt(2.0));
}

TEST(DescriptiveTest, AllTiesGiveZeroSpread) {
  const std::vector<double> ties(5, 0.125);
  EXPECT_EQ(Median(ties), 0.125);
  EXPECT_EQ(Quantile(ties, 0.9), 0.125);
  EXPECT_EQ(MedianAbsoluteDeviation(ties), 0);
  EXPECT_EQ(InterquartileRange(ties), 0);
  EXPECT_EQ(StandardDeviation(ties), 0);
}

TEST(DescriptiveTest, ZerosAreOrdinaryValues) {
  const std::vector<double> zeros(4, 0.0);
  EXPECT_EQ(Median(zeros), 0);
  EXPECT_EQ(Mean(zeros), 0);
  EXPECT_EQ(StandardDeviation(zeros), 0);
}

TEST(DescriptiveTest, EmptySampleThrowsNamingTheFunction) {
  const std::vector<double> empty;
  try {
    Median(empty);
    FAIL() << "Median of nothing returned";
  } catch (const StatsError& e) {
    EXPECT_STREQ(e.what(), "Median: needs at least 1 value, got 0");
  }
  EXPECT_THROW(Quantile(empty, 0.5), StatsError);
  EXPECT_THROW(MedianAbsoluteDeviation(empty), StatsError);
  EXPECT_THROW(InterquartileRange(empty), StatsError);
  EXPECT_THROW(Mean(empty), StatsError);
  EXPECT_THROW(StandardDeviation(empty), StatsError);
}

TEST(DescriptiveTest, NanAndInfinityThrowWithTheirIndex) {
  const std::vector<double> with_nan{1, 2, std::numeric_limits<double>::quiet_NaN()};
  try {
    Median(with_nan);
    FAIL() << "NaN accepted";
  } catch (const StatsError& e) {
    EXPECT_STREQ(e.what(), "Median: value at index 2 is nan, expected a finite number");
  }
  const std::vector<double> with_inf{std::numeric_limits<double>::infinity(), 1};
  try {
    StandardDeviation(with_inf);
    FAIL() << "infinity accepted";
  } catch (const StatsError& e) {
    EXPECT_STREQ(e.what(), "StandardDeviation: value at index 0 is inf, expected a finite number");
  }
  EXPECT_THROW(Quantile(with_nan, 0.5), StatsError);
  EXPECT_THROW(Mean(with_inf), StatsError);
  EXPECT_THROW(InterquartileRange(with_inf), StatsError);
  EXPECT_THROW(MedianAbsoluteDeviation(with_nan), StatsError);
}

TEST(DescriptiveTest, QuantileRejectsProbabilityOutsideUnitInterval) {
  const std::vector<double> x{1, 2, 3};
  EXPECT_THROW(Quantile(x, -0.01), StatsError);
  EXPECT_THROW(Quantile(x, 1.5), StatsError);
  EXPECT_THROW(Quantile(x, std::numeric_limits<double>::quiet_NaN()), StatsError);
}

TEST(DescriptiveTest, MedianInPlaceAgreesWithMedianOnEveryPermutationSize) {
  for (int n = 1; n <= 12; ++n) {
    std::vector<double> x;
    for (int i = 0; i < n; ++i) x.push_back(std::fmod(i * 7.3, 5.1));
    std::vector<double> scratch = x;
    EXPECT_EQ(MedianInPlace(scratch), QuantileOfSorted(Sorted(x), 0.5)) << "n=" << n;
  }
}

}  // namespace
}  // namespace pe::stats
