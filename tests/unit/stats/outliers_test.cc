#include "stats/outliers.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "stats/error.h"
#include "vectors.h"

namespace pe::stats {
namespace {

using testing::Close;
using testing::Doubles;
using testing::kExact;

std::vector<std::size_t> OutliersIndices(const nlohmann::json& array) { return array.get<std::vector<std::size_t>>(); }

TEST(OutliersTest, MatchesReferenceClassification) {
  const auto vectors = testing::LoadVectors("outliers.json");
  for (const auto& c : vectors["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<double> x = Doubles(c["x"]);
    const OutlierReport report = ClassifyOutliers(x);
    EXPECT_EQ(report.n, x.size());
    EXPECT_EQ(report.tukey.mild, OutliersIndices(c["mild"]));
    EXPECT_EQ(report.tukey.severe, OutliersIndices(c["severe"]));
    EXPECT_EQ(report.modified_z.outliers, OutliersIndices(c["modified_z"]));
    const std::vector<double> scores = Doubles(c["scores"]);
    ASSERT_EQ(report.modified_z.scores.size(), scores.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
      EXPECT_TRUE(Close(report.modified_z.scores[i], scores[i], kExact)) << i;
    }
  }
}

TEST(OutliersTest, SpikesAreReportedNotDropped) {
  std::vector<double> x(20, 1.0);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += 0.001 * static_cast<double>(i % 5);
  x[7] = 9.0;
  const OutlierReport report = ClassifyOutliers(x);
  EXPECT_EQ(report.tukey.severe, std::vector<std::size_t>{7});
  EXPECT_EQ(report.modified_z.outliers, std::vector<std::size_t>{7});
  EXPECT_EQ(report.n, 20u);
}

TEST(OutliersTest, TinyAndTiedSamplesHaveNoOutliers) {
  for (const std::vector<double>& x :
       {std::vector<double>{3}, std::vector<double>{1, 100}, std::vector<double>(6, 2.0)}) {
    const OutlierReport report = ClassifyOutliers(x);
    EXPECT_TRUE(report.tukey.mild.empty());
    EXPECT_TRUE(report.modified_z.outliers.empty());
  }
  EXPECT_TRUE(ClassifyModifiedZ(std::vector<double>(6, 2.0)).mad_was_zero);
}

TEST(OutliersTest, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(ClassifyOutliers(std::vector<double>{}), StatsError);
  EXPECT_THROW(ClassifyTukey(std::vector<double>{1, std::numeric_limits<double>::infinity()}), StatsError);
  EXPECT_THROW(ClassifyModifiedZ(std::vector<double>{std::numeric_limits<double>::quiet_NaN()}), StatsError);
}

}  // namespace
}  // namespace pe::stats
