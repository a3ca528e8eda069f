#include "stats/mann_whitney.h"

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

TEST(MannWhitneyTest, MatchesScipyExactAndAsymptotic) {
  const auto vectors = testing::LoadVectors("mann_whitney.json");
  for (const auto& c : vectors["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<double> x = Doubles(c["x"]);
    const std::vector<double> y = Doubles(c["y"]);
    const bool exact = c["method"] == "exact";
    const MannWhitneyResult result = MannWhitneyU(x, y, exact ? MannWhitneyMethod::kExact : MannWhitneyMethod::kNormal);
    EXPECT_EQ(result.exact, exact);
    EXPECT_TRUE(Close(result.u1, c["u1"], kExact));
    EXPECT_TRUE(Close(result.u1 + result.u2, static_cast<double>(x.size() * y.size()), kExact));
    EXPECT_TRUE(Close(result.p_value, c["p"], kExact));
  }
}

TEST(MannWhitneyTest, CompleteSeparationOfSmallSamplesIsExact) {
  const std::vector<double> fast{1, 2, 3};
  const std::vector<double> slow{4, 5, 6};
  const MannWhitneyResult result = MannWhitneyU(fast, slow);
  EXPECT_TRUE(result.exact);
  EXPECT_EQ(result.u1, 0);
  EXPECT_EQ(result.probability_x_greater, 0);
  EXPECT_DOUBLE_EQ(result.p_value, 0.1);  // 2 / C(6, 3)
}

TEST(MannWhitneyTest, AllTiedGivesPOne) {
  const MannWhitneyResult result = MannWhitneyU(std::vector<double>(4, 1.0), std::vector<double>(3, 1.0));
  EXPECT_TRUE(result.ties);
  EXPECT_FALSE(result.exact);
  EXPECT_EQ(result.p_value, 1.0);
  EXPECT_EQ(result.probability_x_greater, 0.5);
}

TEST(MannWhitneyTest, RejectsEmptyAndNonFinite) {
  const std::vector<double> ok{1, 2};
  EXPECT_THROW(MannWhitneyU(ok, std::vector<double>{}), StatsError);
  EXPECT_THROW(MannWhitneyU(std::vector<double>{}, ok), StatsError);
  EXPECT_THROW(MannWhitneyU(ok, std::vector<double>{std::numeric_limits<double>::quiet_NaN()}), StatsError);
}

}  // namespace
}  // namespace pe::stats
