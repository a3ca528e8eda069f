#include "engine/run/fixture_guard.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

class FixtureGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "perfengine-guard-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ / "pkg/sub");
    fs::create_directories(root_ / "repo/.git/worktrees");
    std::ofstream(root_ / "pkg/sub/a.cc") << "a\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(FixtureGuardTest, ReadingChangesNothing) {
  FixtureGuard guard(root_);
  EXPECT_TRUE(guard.complete());
  std::ifstream in(root_ / "pkg/sub/a.cc");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(guard.Changed(), std::nullopt);
}

TEST_F(FixtureGuardTest, NamesAWriteDeepInTheTreeOnce) {
  FixtureGuard guard(root_);
  std::ofstream(root_ / "pkg/sub/a.cc", std::ios::app) << "planted\n";
  EXPECT_EQ(guard.Changed(), "modified 'pkg/sub/a.cc'");
  EXPECT_EQ(guard.Changed(), std::nullopt);  // drained
}

TEST_F(FixtureGuardTest, PrefersTheFileToTheChmodBeforeIt) {
  FixtureGuard guard(root_);
  ::chmod((root_ / "pkg").c_str(), 0700);
  std::ofstream(root_ / "pkg/new") << "x";
  EXPECT_EQ(guard.Changed(), "created 'pkg/new'");
  ::chmod((root_ / "pkg/sub/a.cc").c_str(), 0600);
  EXPECT_EQ(guard.Changed(), "changed the attributes of 'pkg/sub/a.cc'");
}

TEST_F(FixtureGuardTest, RemovalsAndRenamesCount) {
  FixtureGuard guard(root_);
  fs::rename(root_ / "pkg/sub/a.cc", root_ / "pkg/sub/b.cc");
  EXPECT_EQ(guard.Changed(), "renamed 'pkg/sub/a.cc'");
  fs::remove(root_ / "pkg/sub/b.cc");
  EXPECT_EQ(guard.Changed(), "removed 'pkg/sub/b.cc'");
}

TEST_F(FixtureGuardTest, GitBookkeepingIsAllowedOnlyWhenAsked) {
  FixtureGuard guard(root_);
  std::ofstream(root_ / "repo/.git/worktrees/w1") << "gitdir\n";
  EXPECT_EQ(guard.Changed(/*allow_git=*/true), std::nullopt);
  std::ofstream(root_ / "repo/.git/worktrees/w2") << "gitdir\n";
  EXPECT_EQ(guard.Changed(), "created 'repo/.git/worktrees/w2'");
  std::ofstream(root_ / "repo/outside") << "x\n";
  EXPECT_EQ(guard.Changed(/*allow_git=*/true), "created 'repo/outside'");
}

}  // namespace
}  // namespace pe::run
