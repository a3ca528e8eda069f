// PrepareRevision against a throwaway repository: worktrees per commit, reuse, failures, and
// the user's checkout left exactly as it was.
#include "engine/gitbuild/git_build.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "engine/gitbuild/git.h"
#include "tests/unit/gitbuild/test_repo.h"

namespace pe::gitbuild {

using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::ScratchDirectory;
using testing::TestRepo;

// Copies the committed input to an untracked output: proof the build ran, in the worktree.
const std::vector<std::string> kBuild = {"cp", "input.txt", "built.txt"};

class GitBuildTest : public ::testing::Test {
 protected:
  GitBuildTest() : repo_(scratch_.path() / "repo") {
    first_ = repo_.Commit({{"input.txt", "first\n"}}, "first");
    second_ = repo_.Commit({{"input.txt", "second\n"}}, "second");
  }

  BuiltRevision Prepare(const std::string& revision, const std::vector<std::string>& build = kBuild) {
    return PrepareRevision(repo_.dir(), revision, build, cache_, *runner_);
  }

  ScratchDirectory scratch_;
  TestRepo repo_;
  fs::path cache_ = scratch_.path() / "cache";
  std::string first_;
  std::string second_;
  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
};

TEST_F(GitBuildTest, BuildsEachCommitInItsOwnWorktree) {
  BuiltRevision head = Prepare("HEAD");
  BuiltRevision main_parent = Prepare("main~1");
  EXPECT_EQ(head.commit, second_);
  EXPECT_EQ(main_parent.commit, first_);
  EXPECT_FALSE(head.reused);
  fs::path expected_root = fs::canonical(cache_) / "worktrees" / RepoDigest(fs::canonical(repo_.dir()));
  EXPECT_EQ(head.worktree, expected_root / second_);
  EXPECT_EQ(main_parent.worktree, expected_root / first_);
  EXPECT_EQ(ReadText(head.worktree / "built.txt"), "second\n");
  EXPECT_EQ(ReadText(main_parent.worktree / "built.txt"), "first\n");
}

// A report names the commit a contender ran; a build that rewrote a tracked file ran something
// else, and the revision says so (dirty), while an untracked build output leaves it clean.
TEST_F(GitBuildTest, SaysWhenTheBuildChangedTrackedFiles) {
  EXPECT_FALSE(Prepare("HEAD").dirty);
  const BuiltRevision rewritten = Prepare("main~1", {"sh", "-c", "echo generated > input.txt"});
  EXPECT_TRUE(rewritten.dirty);
  // Not reused as the build left it: reset to the commit and built again, which rewrites it again.
  const BuiltRevision again = Prepare("main~1", {"sh", "-c", "echo generated > input.txt"});
  EXPECT_FALSE(again.reused);
  EXPECT_TRUE(again.dirty);
}

// Issue 45: a later run on the same commit built the tree an earlier build had edited, measured
// that, and blamed its own clean build as dirty.
TEST_F(GitBuildTest, AWorktreeAnEarlierBuildEditedIsResetBeforeItIsBuiltAgain) {
  EXPECT_TRUE(Prepare("HEAD", {"sh", "-c", "echo edited > input.txt; echo planted > planted.txt"}).dirty);
  const BuiltRevision clean = Prepare("HEAD");
  EXPECT_FALSE(clean.reused);
  EXPECT_FALSE(clean.dirty);
  EXPECT_EQ(ReadText(clean.worktree / "input.txt"), "second\n");
  EXPECT_EQ(ReadText(clean.worktree / "built.txt"), "second\n");
  EXPECT_FALSE(fs::exists(clean.worktree / "planted.txt"));
}

TEST_F(GitBuildTest, ABuiltWorktreeWhoseTrackedFilesChangedIsNotReused) {
  const BuiltRevision built = Prepare("HEAD");
  testing::WriteText(built.worktree / "input.txt", "edited since\n");
  const BuiltRevision again = Prepare("HEAD");
  EXPECT_FALSE(again.reused);
  EXPECT_FALSE(again.dirty);
  EXPECT_EQ(ReadText(again.worktree / "input.txt"), "second\n");
}

// The build is the pull request's code (docs/threat-model.md): it writes its worktree and its
// $TMPDIR, and nothing of the user's repository, nor another revision's worktree.
TEST_F(GitBuildTest, ABuildWritesItsWorktreeAndNothingOfTheUsersRepository) {
  if (std::system("unshare --user --mount true 2>/dev/null") != 0) GTEST_SKIP() << "this kernel refuses namespaces";
  const BuiltRevision other = Prepare("main~1");
  const std::string script = "git branch evil; git tag evil; git config core.hooksPath /tmp/evil; echo x > '" +
                             (repo_.dir() / "planted").string() + "'; echo x > '" +
                             (other.worktree / "built.txt").string() +
                             "'; echo t > \"$TMPDIR/t\" && cp input.txt built.txt";
  const BuiltRevision head = Prepare("HEAD", {"sh", "-c", script});
  EXPECT_EQ(ReadText(head.worktree / "built.txt"), "second\n");
  EXPECT_EQ(repo_.Git({"branch", "--list", "evil"}), "");
  EXPECT_EQ(repo_.Git({"tag", "--list", "evil"}), "");
  EXPECT_EQ(repo_.Git({"config", "--list", "--local"}).find("hookspath"), std::string::npos);
  EXPECT_FALSE(fs::exists(repo_.dir() / "planted"));
  EXPECT_EQ(ReadText(other.worktree / "built.txt"), "first\n");
}

TEST_F(GitBuildTest, NothingABuildStartsOutlivesIt) {
  Prepare("HEAD", {"sh", "-c",
                   "setsid sh -c 'sleep 600 # perfengine-build-daemon' </dev/null >/dev/null 2>&1 & "
                   "cp input.txt built.txt"});
  for (const auto& entry : fs::directory_iterator("/proc")) {
    EXPECT_EQ(ReadText(entry.path() / "cmdline").find("perfengine-build-daemon"), std::string::npos) << entry.path();
  }
}

TEST_F(GitBuildTest, LeavesTheUsersCheckoutAlone) {
  testing::WriteText(repo_.dir() / "input.txt", "uncommitted edit\n");
  repo_.Git({"add", "input.txt"});
  Prepare("main~1");
  EXPECT_EQ(repo_.Git({"rev-parse", "HEAD"}), second_);
  EXPECT_EQ(repo_.Git({"symbolic-ref", "--short", "HEAD"}), "main");
  EXPECT_EQ(repo_.Git({"status", "--porcelain"}), "M  input.txt");
  EXPECT_EQ(ReadText(repo_.dir() / "input.txt"), "uncommitted edit\n");
  EXPECT_FALSE(fs::exists(repo_.dir() / "built.txt"));
}

TEST_F(GitBuildTest, ReusesABuiltWorktreeUntilTheBuildChanges) {
  BuiltRevision first = Prepare("HEAD");
  fs::remove(first.worktree / "built.txt");  // a reuse must not run the build again
  BuiltRevision again = Prepare(second_);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.worktree, first.worktree);
  EXPECT_FALSE(fs::exists(again.worktree / "built.txt"));

  BuiltRevision rebuilt = Prepare("HEAD", {"cp", "input.txt", "other.txt"});
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(ReadText(rebuilt.worktree / "other.txt"), "second\n");
}

TEST_F(GitBuildTest, NewCommitOnTheBranchGetsANewWorktree) {
  BuiltRevision before = Prepare("main");
  std::string third = repo_.Commit({{"input.txt", "third\n"}}, "third");
  BuiltRevision after = Prepare("main");
  EXPECT_EQ(after.commit, third);
  EXPECT_FALSE(after.reused);
  EXPECT_NE(after.worktree, before.worktree);
  EXPECT_EQ(ReadText(after.worktree / "built.txt"), "third\n");
}

TEST_F(GitBuildTest, DeletedWorktreeIsRecreated) {
  BuiltRevision first = Prepare("HEAD");
  fs::remove_all(first.worktree);
  BuiltRevision again = Prepare("HEAD");
  EXPECT_FALSE(again.reused);
  EXPECT_EQ(ReadText(again.worktree / "built.txt"), "second\n");
}

TEST_F(GitBuildTest, EmptyBuildOnlyChecksOut) {
  BuiltRevision head = Prepare("HEAD", {});
  EXPECT_EQ(ReadText(head.worktree / "input.txt"), "second\n");
  EXPECT_TRUE(Prepare("HEAD", {}).reused);
}

TEST_F(GitBuildTest, UnknownRevisionIsAGitError) {
  try {
    Prepare("no-such-branch");
    FAIL() << "expected GitError";
  } catch (const GitError& error) {
    EXPECT_EQ(std::string(error.what()), "unknown revision 'no-such-branch' in " + fs::canonical(repo_.dir()).string());
  }
}

TEST_F(GitBuildTest, NotARepositoryIsAGitError) {
  fs::create_directories(scratch_.path() / "plain");
  EXPECT_THROW(PrepareRevision(scratch_.path() / "plain", "HEAD", kBuild, cache_, *runner_), GitError);
  EXPECT_THROW(PrepareRevision(scratch_.path() / "missing", "HEAD", kBuild, cache_, *runner_), GitError);
}

TEST_F(GitBuildTest, FailedBuildNamesTheRevisionStatusAndLogTail) {
  const std::vector<std::string> failing = {
      "sh", "-c", "for i in $(seq 1 50); do echo step $i; done; echo 'error: boom' >&2; exit 3"};
  try {
    Prepare("main~1", failing);
    FAIL() << "expected BuildError";
  } catch (const BuildError& error) {
    std::string message = error.what();
    EXPECT_TRUE(
        message.starts_with("building revision 'main~1' (" + first_.substr(0, 12) + ") failed: exited with status 3\n"))
        << message;
    EXPECT_NE(message.find("step 50\n"), std::string::npos) << message;
    EXPECT_EQ(message.find("step 20\n"), std::string::npos) << message;  // only the tail
    EXPECT_NE(message.find("error: boom\n"), std::string::npos) << message;
    EXPECT_EQ(ReadText(error.log_path()).substr(0, 7), "step 1\n");
  }
  // A failed build is never reused: the next attempt builds again.
  BuiltRevision fixed = Prepare("main~1");
  EXPECT_FALSE(fixed.reused);
  EXPECT_EQ(ReadText(fixed.worktree / "built.txt"), "first\n");
}

// The worktrees git lists, in no particular order.
std::set<fs::path> Registered(ProcessRunner& runner, const fs::path& repo, const fs::path& scratch) {
  const std::vector<fs::path> listed = ListWorktrees(runner, repo, scratch);
  return {listed.begin(), listed.end()};
}

// bisect builds each commit once: RemoveRevision takes the worktree, git's record of it and
// its build marker, so nothing stays registered and the next Prepare builds afresh.
TEST_F(GitBuildTest, RemoveRevisionUnregistersTheWorktreeAndItsMarker) {
  const BuiltRevision first = Prepare("main~1");
  const BuiltRevision head = Prepare("HEAD");
  const fs::path repo = fs::canonical(repo_.dir());
  EXPECT_EQ(Registered(*runner_, repo, scratch_.path()), (std::set<fs::path>{repo, first.worktree, head.worktree}));
  RemoveRevision(repo_.dir(), first.commit, cache_, *runner_);
  EXPECT_EQ(Registered(*runner_, repo, scratch_.path()), (std::set<fs::path>{repo, head.worktree}));
  EXPECT_FALSE(fs::exists(first.worktree));
  EXPECT_FALSE(fs::exists(first.worktree.string() + ".built"));
  EXPECT_TRUE(fs::exists(head.worktree.string() + ".built"));
  const BuiltRevision again = Prepare("main~1");
  EXPECT_FALSE(again.reused);
  EXPECT_EQ(ReadText(again.worktree / "built.txt"), "first\n");
}

TEST_F(GitBuildTest, RemoveRevisionPrunesARecordWhoseFolderIsGone) {
  const BuiltRevision head = Prepare("HEAD");
  fs::remove_all(head.worktree);
  RemoveRevision(repo_.dir(), head.commit, cache_, *runner_);
  const fs::path repo = fs::canonical(repo_.dir());
  EXPECT_EQ(Registered(*runner_, repo, scratch_.path()), std::set<fs::path>{repo});
}

TEST_F(GitBuildTest, RemoveRevisionOfACommitNeverPreparedDoesNothing) {
  const BuiltRevision head = Prepare("HEAD");
  RemoveRevision(repo_.dir(), first_, cache_, *runner_);
  const fs::path repo = fs::canonical(repo_.dir());
  EXPECT_EQ(Registered(*runner_, repo, scratch_.path()), (std::set<fs::path>{repo, head.worktree}));
  EXPECT_TRUE(Prepare("HEAD").reused);
}

TEST(RepoDigestTest, StableAndDistinct) {
  EXPECT_EQ(RepoDigest("/src/project"), RepoDigest("/src/project"));
  EXPECT_NE(RepoDigest("/src/project"), RepoDigest("/src/project2"));
  EXPECT_EQ(RepoDigest("/src/project").size(), 16u);
}

}  // namespace
}  // namespace pe::gitbuild
