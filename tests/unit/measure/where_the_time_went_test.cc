#include "engine/measure/where_the_time_went.h"

#include <gtest/gtest.h>

namespace pe::measure {
namespace {

TEST(WhereTheTimeWentTest, RanksGrowthOfSelfCost) {
  std::vector<FunctionCost> base = {{"ParseRecords(int)", 0.40, 400}, {"BuildIndex", 0.50, 500}, {"main", 0.10, 100}};
  std::vector<FunctionCost> cand = {
      {"ParseRecords(int)", 0.64, 1600}, {"BuildIndex", 0.20, 500}, {"main", 0.04, 100}, {"NewHelper", 0.12, 300}};
  std::vector<FunctionDelta> deltas = WhereTheTimeWent(base, cand, 5);
  ASSERT_EQ(deltas.size(), 2u);  // unchanged functions are not growth
  EXPECT_EQ(deltas[0].function, "ParseRecords(int)");
  EXPECT_EQ(deltas[0].cost_delta, 1200);
  EXPECT_NEAR(deltas[0].share_delta, 0.24, 1e-12);
  EXPECT_EQ(deltas[1].function, "NewHelper");
  EXPECT_EQ(deltas[1].base_cost, 0u);
  EXPECT_EQ(deltas[1].cand_cost, 300u);
}

TEST(WhereTheTimeWentTest, TopLimitsAndTiesBreakOnShare) {
  std::vector<FunctionCost> base = {{"a", 0.5, 100}, {"b", 0.5, 100}};
  std::vector<FunctionCost> cand = {{"a", 0.4, 200}, {"b", 0.6, 200}, {"c", 0.1, 50}};
  std::vector<FunctionDelta> deltas = WhereTheTimeWent(base, cand, 1);
  ASSERT_EQ(deltas.size(), 1u);
  EXPECT_EQ(deltas[0].function, "b");
}

TEST(WhereTheTimeWentTest, ShrinkingFunctionsAreNotListed) {
  std::vector<FunctionCost> base = {{"a", 1.0, 100}};
  std::vector<FunctionCost> cand = {{"a", 1.0, 90}};
  EXPECT_TRUE(WhereTheTimeWent(base, cand, 5).empty());
  EXPECT_EQ(FormatWhereTheTimeWent({}), "No function's self cost grew.\n");
}

TEST(FormatWhereTheTimeWentTest, SmallTable) {
  std::vector<FunctionCost> base = {{"ParseRecords(int)", 0.4, 1200000}, {"f", 0.1, 5}};
  std::vector<FunctionCost> cand = {{"ParseRecords(int)", 0.667, 3600000}, {"f", 0.1, 1005}};
  EXPECT_EQ(FormatWhereTheTimeWent(WhereTheTimeWent(base, cand, 5)),
            "  function            baseline  candidate      change  share\n"
            "  ParseRecords(int)  1,200,000  3,600,000  +2,400,000  40.0% -> 66.7%\n"
            "  f                          5      1,005      +1,000  10.0% -> 10.0%\n");
}

}  // namespace
}  // namespace pe::measure
