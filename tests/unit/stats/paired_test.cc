#include "stats/paired.h"

#include <gtest/gtest.h>

#include <algorithm>
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

const nlohmann::json& PairedVectors() {
  static const nlohmann::json vectors = testing::LoadVectors("paired.json");
  return vectors;
}

TEST(SignTestTest, MatchesScipyBinomtest) {
  for (const auto& c : PairedVectors()["sign_test"]) {
    SCOPED_TRACE(c.dump());
    EXPECT_TRUE(Close(SignTest(c["wins"], c["losses"]).p_value, c["p"], kExact));
  }
}

TEST(SignTestTest, CountsWinsLossesAndTiesOverRounds) {
  const std::vector<double> baseline{1.0, 1.0, 1.0, 1.0, 1.0};
  const std::vector<double> candidate{0.5, 0.9, 1.0, 1.2, 0.8};
  const SignTestResult result = SignTestPaired(baseline, candidate);
  EXPECT_EQ(result.wins, 3);
  EXPECT_EQ(result.losses, 1);
  EXPECT_EQ(result.ties, 1);
  EXPECT_DOUBLE_EQ(result.p_value, 0.625);  // 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
}

TEST(SignTestTest, NoTrialsGivesPOne) {
  EXPECT_EQ(SignTest(0, 0, 4).p_value, 1.0);
  EXPECT_EQ(SignTestPaired(std::vector<double>{}, std::vector<double>{}).p_value, 1.0);
  EXPECT_THROW(SignTest(-1, 2), StatsError);
}

TEST(WilcoxonTest, MatchesScipyExactAndTieCorrectedNormal) {
  for (const auto& c : PairedVectors()["wilcoxon"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<double> d = Doubles(c["d"]);
    const bool exact = c["method"] == "exact";
    const WilcoxonResult result = WilcoxonSignedRank(d, exact ? WilcoxonMethod::kExact : WilcoxonMethod::kNormal);
    EXPECT_EQ(result.exact, exact);
    EXPECT_TRUE(Close(result.r_plus, c["r_plus"], kExact));
    EXPECT_TRUE(Close(result.r_minus, c["r_minus"], kExact));
    EXPECT_TRUE(Close(result.statistic, c["statistic"], kExact));
    EXPECT_TRUE(Close(result.p_value, c["p"], kExact));
  }
}

TEST(WilcoxonTest, AutoPicksExactOnlyWithoutTiesUpToFifty) {
  const auto& cases = PairedVectors()["wilcoxon"];
  for (const auto& c : cases) {
    const std::vector<double> d = Doubles(c["d"]);
    const WilcoxonResult result = WilcoxonSignedRank(d);
    std::vector<double> magnitude;
    for (double v : d) {
      if (v != 0) magnitude.push_back(std::fabs(v));
    }
    std::sort(magnitude.begin(), magnitude.end());
    const bool ties = std::adjacent_find(magnitude.begin(), magnitude.end()) != magnitude.end();
    EXPECT_EQ(result.exact, !ties && magnitude.size() <= 50) << c["name"];
    EXPECT_EQ(result.ties, ties) << c["name"];
  }
}

TEST(WilcoxonTest, ExactRequestFallsBackToNormalWithTies) {
  const std::vector<double> d{0.1, -0.1, 0.2, 0.3, 0.3, 0.4};
  const WilcoxonResult result = WilcoxonSignedRank(d, WilcoxonMethod::kExact);
  EXPECT_FALSE(result.exact);
  EXPECT_TRUE(result.ties);
}

TEST(WilcoxonTest, SmallAndDegenerateInputs) {
  const WilcoxonResult one = WilcoxonSignedRank(std::vector<double>{0.3});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.p_value, 1.0);
  const WilcoxonResult two = WilcoxonSignedRank(std::vector<double>{-0.3, -0.1});
  EXPECT_EQ(two.r_minus, 3);
  EXPECT_DOUBLE_EQ(two.p_value, 0.5);  // T+ = 0 has probability 1/4 for n = 2
  const WilcoxonResult zeros = WilcoxonSignedRank(std::vector<double>(5, 0.0));
  EXPECT_EQ(zeros.n, 0);
  EXPECT_EQ(zeros.zeros, 5);
  EXPECT_EQ(zeros.p_value, 1.0);
  const WilcoxonResult tied = WilcoxonSignedRank(std::vector<double>(12, 0.05));
  EXPECT_FALSE(tied.exact);
  EXPECT_LT(tied.p_value, 0.001);  // twelve identical positive differences
  EXPECT_THROW(WilcoxonSignedRank(std::vector<double>{}), StatsError);
  EXPECT_THROW(WilcoxonSignedRank(std::vector<double>{1, std::nan("")}), StatsError);
}

TEST(HodgesLehmannTest, MatchesWalshAverageReference) {
  for (const auto& c : PairedVectors()["hodges_lehmann"]) {
    const std::vector<double> d = Doubles(c["d"]);
    SCOPED_TRACE(::testing::Message() << "n=" << d.size() << " confidence=" << c["confidence"]);
    const HodgesLehmannResult result = HodgesLehmann(d, c["confidence"]);
    EXPECT_TRUE(Close(result.estimate, c["estimate"], kExact));
    EXPECT_TRUE(Close(result.low, c["low"], kExact));
    EXPECT_TRUE(Close(result.high, c["high"], kExact));
    EXPECT_TRUE(Close(result.achieved_level, c["achieved_level"], kExact));
    EXPECT_EQ(result.level_reached, c["level_reached"].get<bool>());
    EXPECT_EQ(result.exact, d.size() <= 50);
  }
}

TEST(HodgesLehmannTest, TinySamplesReportTheRangeAndItsCoverage) {
  const HodgesLehmannResult one = HodgesLehmann(std::vector<double>{0.2});
  EXPECT_EQ(one.estimate, 0.2);
  EXPECT_EQ(one.low, 0.2);
  EXPECT_EQ(one.high, 0.2);
  EXPECT_FALSE(one.level_reached);
  EXPECT_EQ(one.achieved_level, 0.0);
  const HodgesLehmannResult two = HodgesLehmann(std::vector<double>{0.1, 0.3});
  EXPECT_DOUBLE_EQ(two.estimate, 0.2);
  EXPECT_EQ(two.low, 0.1);
  EXPECT_EQ(two.high, 0.3);
  EXPECT_DOUBLE_EQ(two.achieved_level, 0.5);
  const HodgesLehmannResult ties = HodgesLehmann(std::vector<double>(20, -0.04));
  EXPECT_EQ(ties.estimate, -0.04);
  EXPECT_EQ(ties.low, -0.04);
  EXPECT_EQ(ties.high, -0.04);
  EXPECT_TRUE(ties.level_reached);
  EXPECT_THROW(HodgesLehmann(std::vector<double>{}), StatsError);
  EXPECT_THROW(HodgesLehmann(std::vector<double>{1.0}, 1.0), StatsError);
}

TEST(RatiosTest, PerRoundRatiosAndLogs) {
  const std::vector<double> baseline{2.0, 4.0};
  const std::vector<double> candidate{1.0, 4.0};
  EXPECT_EQ(Ratios(baseline, candidate), (std::vector<double>{0.5, 1.0}));
  const std::vector<double> logs = LogRatios(baseline, candidate);
  EXPECT_DOUBLE_EQ(logs[0], std::log(0.5));
  EXPECT_EQ(logs[1], 0.0);
}

TEST(RatiosTest, RejectsZerosMismatchesAndNonFinite) {
  const std::vector<double> ok{1.0, 2.0};
  try {
    LogRatios(ok, std::vector<double>{1.0, 0.0});
    FAIL() << "zero candidate accepted";
  } catch (const StatsError& e) {
    EXPECT_STREQ(e.what(), "LogRatios: candidate value at index 1 is 0, expected > 0");
  }
  EXPECT_THROW(Ratios(std::vector<double>{0.0, 1.0}, ok), StatsError);
  EXPECT_NO_THROW(Ratios(ok, std::vector<double>{0.0, 1.0}));  // a zero candidate time is a ratio of 0
  EXPECT_THROW(Ratios(ok, std::vector<double>{1.0}), StatsError);
  EXPECT_THROW(Ratios(ok, std::vector<double>{1.0, std::numeric_limits<double>::infinity()}), StatsError);
  EXPECT_TRUE(Ratios(std::vector<double>{}, std::vector<double>{}).empty());
}

}  // namespace
}  // namespace pe::stats
