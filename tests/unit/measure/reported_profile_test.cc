// Profiles a contender reports itself ($PERFENGINE_PROFILE): the line format and the diff.
#include "engine/measure/reported_profile.h"

#include <gtest/gtest.h>

namespace pe::measure {
namespace {

std::vector<ReportedFunction> ReportedProfileParsed(std::string_view text) {
  std::vector<ReportedFunction> out;
  const std::optional<std::string> error = ParseReportedProfile(text, out);
  EXPECT_FALSE(error) << *error;
  return out;
}

std::string ErrorOf(std::string_view text) {
  std::vector<ReportedFunction> out;
  return ParseReportedProfile(text, out).value_or("(no error)");
}

TEST(ReportedProfile, ReadsCallsAndOptionalCost) {
  const std::vector<ReportedFunction> f = ReportedProfileParsed("JSON.parse 200\n\n  Hash#[]\t1400 2.5e3\r\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].function, "JSON.parse");
  EXPECT_EQ(f[0].calls, 200u);
  EXPECT_FALSE(f[0].cost);
  EXPECT_EQ(f[1].function, "Hash#[]");
  EXPECT_EQ(f[1].calls, 1400u);
  EXPECT_EQ(f[1].cost.value_or(0), 2500);
}

TEST(ReportedProfile, ABadLineIsNamedAndQuoted) {
  EXPECT_EQ(ErrorOf("JSON.parse 200\nHash#transform_keys\n"),
            "line 2 'Hash#transform_keys': expected 'function calls' or 'function calls cost'");
  EXPECT_EQ(ErrorOf("JSON.parse 2.5\n"), "line 1 'JSON.parse 2.5': '2.5' is not a whole number of calls");
  EXPECT_EQ(ErrorOf("JSON.parse -1\n"), "line 1 'JSON.parse -1': '-1' is not a whole number of calls");
  EXPECT_EQ(ErrorOf("f 1 x\n"), "line 1 'f 1 x': 'x' is not a number");
  EXPECT_EQ(ErrorOf("f 1 -2\n"), "line 1 'f 1 -2': '-2' must be a finite number at least 0");
  EXPECT_EQ(ErrorOf("f 1\ng 2\nf 3\n"), "line 3 'f 3': function 'f' is reported twice (first on line 1)");
  EXPECT_EQ(ErrorOf("a b c d\n"), "line 1 'a b c d': expected 'function calls' or 'function calls cost'");
}

TEST(ReportedProfile, NamesTheFunctionsWhoseCallsGrewMostAddedFirst) {
  const auto base = ReportedProfileParsed("JSON.parse 200\nJSON::Ext::Parser.parse 200\nString#freeze 50\n");
  const auto cand = ReportedProfileParsed(
      "JSON.parse 200\nJSON::Ext::Parser.parse 200\nHash#transform_keys 200\nSymbol#to_proc 200\nString#freeze 40\n");
  const std::vector<ReportedShift> grown = ReportedGrowth(base, cand, 8);
  ASSERT_EQ(grown.size(), 2u);
  EXPECT_EQ(grown[0].function, "Hash#transform_keys");  // ties: by name
  EXPECT_EQ(grown[0].base_calls, 0u);
  EXPECT_EQ(grown[0].cand_calls, 200u);
  EXPECT_EQ(grown[1].function, "Symbol#to_proc");
  EXPECT_EQ(ReportedGrowth(base, cand, 1).size(), 1u);
  // Equal calls but a larger reported cost is growth too; fewer calls is not.
  const auto costly = ReportedGrowth(ReportedProfileParsed("f 10 100\n"), ReportedProfileParsed("f 10 150\n"), 8);
  ASSERT_EQ(costly.size(), 1u);
  EXPECT_EQ(costly[0].cand_cost, 150);
  EXPECT_TRUE(ReportedGrowth(cand, cand, 8).empty());
  EXPECT_TRUE(ReportedGrowth(ReportedProfileParsed("f 10 100\n"), ReportedProfileParsed("f 5 900\n"), 8).empty());
}

}  // namespace
}  // namespace pe::measure
