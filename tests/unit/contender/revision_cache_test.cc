// The per-commit cache behind serve, in-process against a real git_workspace fixture.
#include "revision_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "error.h"
#include "git_repo.h"
#include "serve_support.h"
#include "subprocess.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

using testing::Git;
using testing::ScratchDir;
using testing::SharedGitFixture;
using testing::WorktreeCount;

GitRepo Repo() { return GitRepo(FindOnPath("git"), SharedGitFixture().repo()); }

std::string Commit(const std::string& tag) {
  nlohmann::json revisions = nlohmann::json::parse(ReadFile(SharedGitFixture().dir / "revisions.json"));
  for (const auto& revision : revisions) {
    if (revision["tag"] == tag) return revision["commit"];
  }
  return {};
}

TEST(GitRepoTest, ResolvesCommitsOnly) {
  GitRepo repo = Repo();
  EXPECT_EQ(repo.ResolveCommit("rev1"), Commit("rev1"));
  EXPECT_EQ(repo.ResolveCommit(Commit("rev0")), Commit("rev0"));
  EXPECT_EQ(repo.ResolveCommit("main"), Commit("rev2"));
  EXPECT_EQ(repo.ResolveCommit("rev2~1"), Commit("rev1"));
  EXPECT_EQ(repo.ResolveCommit("rev7"), std::nullopt);
  EXPECT_EQ(repo.ResolveCommit("rev0:WORKSPACE"), std::nullopt);  // a blob
  EXPECT_EQ(repo.ResolveCommit("--all"), std::nullopt);
  EXPECT_EQ(repo.ResolveCommit(""), std::nullopt);
}

TEST(GitRepoTest, RefusesADirectoryOutsideGit) {
  ScratchDir dir;
  try {
    GitRepo(FindOnPath("git"), dir.path());
    FAIL() << "expected RefDiffError";
  } catch (const RefDiffError& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with(dir.path().string() + " is not a git repository: "))
        << error.what();
  }
}

TEST(FindOnPathTest, FindsExecutablesOnly) {
  EXPECT_TRUE(FindOnPath("git").is_absolute());
  EXPECT_EQ(FindOnPath("no-such-program-anywhere"), std::filesystem::path());
}

TEST(HashWorkspaceTest, EqualsTheHashesFileGenerateHashesWrites) {
  const auto& fixture = SharedGitFixture();
  ScratchDir scratch;
  std::filesystem::path checkout = scratch.path() / "checkout";
  Git(fixture.repo(), {"worktree", "add", "--quiet", "--detach", checkout.string(), "rev1"});
  std::filesystem::path out = scratch.path() / "hashes.json";
  ProcessResult generated = RunProcess(
      {{REFDIFF_BASELINE, "generate-hashes", "-w", checkout.string(), "-b", fixture.bazel().string(), out.string()},
       {},
       {}});
  ASSERT_EQ(generated.exit_code, 0) << generated.stderr_text;
  BazelOptions bazel{fixture.bazel(), checkout, {}, false};
  HashEntries entries = HashWorkspace(bazel, 2);
  Git(fixture.repo(), {"worktree", "remove", "--force", checkout.string()});
  EXPECT_EQ(entries, ParseHashesJson(ReadFile(out), out.string()));
  // 200 targets, of which 5 are the packages' package groups, which hash files leave out.
  EXPECT_EQ(entries.size(), 195u);
}

TEST(RevisionCacheTest, ConcurrentRequestsForOneCommitComputeOnce) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  RevisionCache cache(repo, {fixture.bazel(), {}, {}}, 1);
  const std::string commit = Commit("rev1");
  std::vector<std::shared_ptr<const HashEntries>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = cache.Hashes(commit); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.computations(), 1);
  for (const auto& result : results) EXPECT_EQ(result, results[0]);
  EXPECT_EQ(results[0]->size(), 195u);  // 200 targets less 5 package groups

  EXPECT_NE(*cache.Hashes(Commit("rev0")), *results[0]);
  EXPECT_EQ(cache.Hashes(commit), results[0]);
  EXPECT_EQ(cache.computations(), 2);
  // Each checkout is gone once hashed.
  EXPECT_EQ(WorktreeCount(fixture.repo()), 1);
}

TEST(RevisionCacheTest, FailuresReachTheCallerAndAreNotCached) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  RevisionCache cache(repo, {"/bin/false", {}, {}}, 1);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    try {
      cache.Hashes(Commit("rev0"));
      FAIL() << "expected RefDiffError";
    } catch (const RefDiffError& error) {
      EXPECT_STREQ(error.what(), "'bazel info output_base' failed with exit code 1");
    }
    EXPECT_EQ(cache.computations(), attempt);
  }
  EXPECT_EQ(WorktreeCount(fixture.repo()), 1);
}

// --cacheDir: a commit hashed once is read back from <dir>/<commit>.json by a later server.
TEST(RevisionCacheTest, TheCacheDirectoryOutlivesTheServer) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  ScratchDir dir;
  std::shared_ptr<const HashEntries> first;
  {
    RevisionCache cache(repo, {fixture.bazel(), {}, dir.path()}, 1);
    first = cache.Hashes(Commit("rev1"));
    EXPECT_EQ(cache.computations(), 1);
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path() / (Commit("rev1") + ".json")));
  RevisionCache restarted(repo, {"/bin/false", {}, dir.path()}, 1);  // a bazel that cannot hash
  EXPECT_EQ(*restarted.Hashes(Commit("rev1")), *first);
  EXPECT_THROW(restarted.Hashes(Commit("rev0")), RefDiffError);
}

TEST(RevisionCacheTest, RemovesItsDirectory) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  // A temp directory of our own, so other processes' files cannot confuse the count.
  ScratchDir tmp;
  const char* saved = std::getenv("TMPDIR");
  std::string saved_value = saved != nullptr ? saved : "";
  setenv("TMPDIR", tmp.path().c_str(), 1);
  {
    RevisionCache cache(repo, {fixture.bazel(), {}, {}}, 1);
    cache.Hashes(Commit("rev2"));
    auto entries = std::distance(std::filesystem::directory_iterator(tmp.path()), {});
    EXPECT_EQ(entries, 1);
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()));
  if (saved != nullptr)
    setenv("TMPDIR", saved_value.c_str(), 1);
  else
    unsetenv("TMPDIR");
}

}  // namespace
}  // namespace pe::refdiff
