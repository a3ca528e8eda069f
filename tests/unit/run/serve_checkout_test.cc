// {checkout}: a clone per server start that a server may check revisions out in, as upstream
// bazel-diff's serve does in its -w, while the fixture it came from stays as it was.
#include "engine/run/serve_checkout.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "engine/runner/process_runner.h"
#include "tests/unit/gitbuild/test_repo.h"

namespace pe::run {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::ScratchDirectory;
using testing::TestRepo;

spec::Workload WithArgs(std::vector<std::string> args) {
  spec::Workload w;
  for (auto& a : args) w.args.push_back({std::move(a), {}});
  return w;
}

TEST(ServeCheckout, UsesCheckoutReadsThePlaceholder) {
  EXPECT_TRUE(UsesCheckout(WithArgs({"serve", "-w", "{checkout}"})));
  EXPECT_TRUE(UsesCheckout(WithArgs({"--workspacePath={checkout}/sub"})));
  EXPECT_FALSE(UsesCheckout(WithArgs({"serve", "-w", "{fixture}/repo", "{{checkout}}"})));
}

TEST(ServeCheckout, FindsTheFixturesRepositoryOrSaysWhereItLooked) {
  ScratchDirectory scratch;
  TestRepo repo(scratch.path() / "fixture" / "repo");
  EXPECT_EQ(FixtureRepository(scratch.path() / "fixture"), scratch.path() / "fixture" / "repo");
  EXPECT_EQ(FixtureRepository(scratch.path() / "fixture" / "repo"), scratch.path() / "fixture" / "repo");
  const fs::path empty = scratch.path() / "empty";
  fs::create_directories(empty);
  try {
    FixtureRepository(empty);
    ADD_FAILURE() << "no repository, no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "{checkout} needs a git repository in the fixture, but neither " + empty.string() +
                                         " nor " + (empty / "repo").string() + " is one");
  }
}

// What upstream's GitClient runs in -w (GitClient.kt:83-86, 158-166), run in the clone: it
// works there, and the fixture's files, HEAD and index are untouched.
TEST(ServeCheckout, AServerCanCheckOutInItsCloneAndTheFixtureStaysAsItWas) {
  ScratchDirectory scratch;
  TestRepo fixture(scratch.path() / "fixture" / "repo");
  fixture.Commit({{"a.txt", "rev0\n"}}, "rev0");
  fixture.Git({"tag", "rev0"});
  fixture.Commit({{"a.txt", "rev1\n"}, {"b.txt", "new in rev1\n"}}, "rev1");
  fixture.Git({"tag", "rev1"});
  const std::string head = fixture.Git({"rev-parse", "HEAD"});
  const std::string index = ReadText(fixture.dir() / ".git" / "index");

  auto runner = runner::MakeSystemProcessRunner();
  const fs::path dest = scratch.path() / "exec" / "checkout";
  fs::create_directories(dest.parent_path());
  MakeCheckout(*runner, scratch.path() / "fixture", dest, dest.parent_path(), 60);
  EXPECT_EQ(ReadText(dest / "a.txt"), "rev1\n");  // what the fixture has checked out

  TestRepo clone(dest);  // (git init in an existing repository changes nothing)
  clone.Git({"fetch", "--all", "--prune"});
  clone.Git({"-c", "gc.auto=0", "checkout", "--force", "rev0"});
  EXPECT_EQ(ReadText(dest / "a.txt"), "rev0\n");
  EXPECT_FALSE(fs::exists(dest / "b.txt"));

  EXPECT_EQ(ReadText(fixture.dir() / "a.txt"), "rev1\n");
  EXPECT_EQ(ReadText(fixture.dir() / "b.txt"), "new in rev1\n");
  EXPECT_EQ(fixture.Git({"rev-parse", "HEAD"}), head);
  EXPECT_EQ(ReadText(fixture.dir() / ".git" / "index"), index);
}

TEST(ServeCheckout, ACloneThatCannotBeMadeIsAnErrorWithGitsWords) {
  ScratchDirectory scratch;
  TestRepo fixture(scratch.path() / "fixture" / "repo");
  fixture.Commit({{"a.txt", "x\n"}}, "one");
  const fs::path dest = scratch.path() / "exec" / "checkout";
  fs::create_directories(dest);
  testing::WriteText(dest / "in-the-way", "x");  // git clone refuses a non-empty destination
  auto runner = runner::MakeSystemProcessRunner();
  try {
    MakeCheckout(*runner, scratch.path() / "fixture", dest, scratch.path(), 60);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("for {checkout} failed: fatal: destination path"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pe::run
