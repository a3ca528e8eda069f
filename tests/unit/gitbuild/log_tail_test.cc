#include "engine/gitbuild/log_tail.h"

#include <gtest/gtest.h>

#include "tests/unit/gitbuild/test_repo.h"

namespace pe::gitbuild {
namespace {

TEST(LogTailTest, LastLines) {
  testing::ScratchDirectory dir;
  testing::WriteText(dir.path() / "log", "one\ntwo\nthree\nfour\n");
  EXPECT_EQ(LogTail(dir.path() / "log", 2), "three\nfour\n");
  EXPECT_EQ(LogTail(dir.path() / "log", 10), "one\ntwo\nthree\nfour\n");
  EXPECT_EQ(LogTail(dir.path() / "log", 0), "");
}

TEST(LogTailTest, UnterminatedLastLineAndEmptyFiles) {
  testing::ScratchDirectory dir;
  testing::WriteText(dir.path() / "log", "one\ntwo");
  testing::WriteText(dir.path() / "empty", "");
  EXPECT_EQ(LogTail(dir.path() / "log", 1), "two\n");
  EXPECT_EQ(LogTail(dir.path() / "empty", 3), "");
  EXPECT_EQ(LogTail(dir.path() / "missing", 3), "");
}

}  // namespace
}  // namespace pe::gitbuild
