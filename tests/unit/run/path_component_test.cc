#include "engine/run/path_component.h"

#include <gtest/gtest.h>

namespace pe::run {
namespace {

TEST(PathComponent, KeepsPlainNames) {
  EXPECT_EQ(PathComponent("generate-hashes_small.v2"), "generate-hashes_small.v2");
}

TEST(PathComponent, EscapesEverythingThatCouldClimbOrSplit) {
  EXPECT_EQ(PathComponent("w[dir=/../../x]"), "w%5Bdir%3D%2F..%2F..%2Fx%5D");
  EXPECT_EQ(PathComponent(".."), "%2E%2E");
  EXPECT_EQ(PathComponent("."), "%2E");
  EXPECT_EQ(PathComponent(""), "%");
  EXPECT_EQ(PathComponent("100%"), "100%25");  // '%' itself, so escapes cannot collide
  EXPECT_EQ(PathComponent(std::string("a\0b", 3)), "a%00b");
}

TEST(PathComponent, LongNamesStayDistinctAndShort) {
  const std::string a(300, 'a');
  const std::string b = a + "b";
  EXPECT_LE(PathComponent(a).size(), 160u);
  EXPECT_NE(PathComponent(a), PathComponent(b));
}

}  // namespace
}  // namespace pe::run
