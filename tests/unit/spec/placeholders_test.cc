#include "engine/spec/placeholders.h"

#include <gtest/gtest.h>

namespace pe::spec {
namespace {

TEST(Placeholders, FindsNamesAndHonoursEscapes) {
  std::string error;
  EXPECT_EQ(PlaceholdersIn("{fixture}/a-{out}", &error), (std::vector<std::string>{"fixture", "out"}));
  EXPECT_EQ(error, "");
  EXPECT_TRUE(PlaceholdersIn("{{literal}}", &error).empty());
  EXPECT_EQ(error, "");
  PlaceholdersIn("{out", &error);
  EXPECT_EQ(error, "unclosed '{' in '{out' (write '{{' for a literal brace)");
  PlaceholdersIn("out}", &error);
  EXPECT_EQ(error, "unmatched '}' in 'out}' (write '}}' for a literal brace)");
}

TEST(Placeholders, Expands) {
  EXPECT_EQ(Expand("{fixture}/x-{scale} {{y}}", {{"fixture", "/f"}, {"scale", "2"}}), "/f/x-2 {y}");
  EXPECT_THROW(Expand("{nope}", {}), std::logic_error);
}

}  // namespace
}  // namespace pe::spec
