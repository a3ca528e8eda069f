// The per-commit cache behind serve, in-process against a real git_workspace fixture.
#include "revision_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <mutex>
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

// serve hashes as generate-hashes --includeTargetType does, with --depEdgesFile's edges.
TEST(HashWorkspaceTest, EqualsTheHashesFileGenerateHashesWrites) {
  const auto& fixture = SharedGitFixture();
  ScratchDir scratch;
  std::filesystem::path checkout = scratch.path() / "checkout";
  Git(fixture.repo(), {"worktree", "add", "--quiet", "--detach", checkout.string(), "rev1"});
  std::filesystem::path out = scratch.path() / "hashes.json", deps = scratch.path() / "deps.json";
  ProcessResult generated =
      RunProcess({{REFDIFF_BASELINE, "generate-hashes", "-w", checkout.string(), "-b", fixture.bazel().string(),
                   "--includeTargetType", "-d", deps.string(), out.string()},
                  {},
                  {}});
  ASSERT_EQ(generated.exit_code, 0) << generated.stderr_text;
  BazelOptions bazel{fixture.bazel(), checkout, {}, false};
  RevisionHashes hashed = HashWorkspace(bazel, 2, true);
  RevisionHashes without_edges = HashWorkspace(bazel, 1, false);
  Git(fixture.repo(), {"worktree", "remove", "--force", checkout.string()});
  EXPECT_EQ(hashed.hashes, ParseHashesJson(ReadFile(out), out.string()));
  EXPECT_EQ(hashed.dep_edges, ParseDepEdgesJson(ReadFile(deps), deps.string()));
  EXPECT_FALSE(hashed.dep_edges.empty());
  EXPECT_EQ(without_edges.hashes, hashed.hashes);
  EXPECT_TRUE(without_edges.dep_edges.empty());
  EXPECT_FALSE(hashed.module_graph_json.has_value());
  // 200 targets, of which 5 are the packages' package groups, which hash files leave out.
  EXPECT_EQ(hashed.hashes.size(), 195u);
  EXPECT_TRUE(hashed.hashes[0].second.starts_with("Rule#") || hashed.hashes[0].second.starts_with("SourceFile#"));
}

std::string HeadOf(const std::filesystem::path& repo) {
  std::string head = Git(repo, {"rev-parse", "HEAD"});
  head.pop_back();
  return head;
}

// Upstream checks the commit out in -w itself, not in a directory of its own.
TEST(RevisionCacheTest, ChecksTheCommitOutInTheCloneItself) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  RevisionCache cache(repo, {fixture.bazel(), {}, {}}, 1);
  cache.Hashes(Commit("rev1"));
  EXPECT_EQ(HeadOf(fixture.repo()), Commit("rev1"));
  EXPECT_TRUE(std::filesystem::is_regular_file(fixture.repo() / "WORKSPACE"));
  cache.Hashes(Commit("rev0"));
  EXPECT_EQ(HeadOf(fixture.repo()), Commit("rev0"));
  cache.Hashes(Commit("rev1"));  // from memory: no checkout
  EXPECT_EQ(HeadOf(fixture.repo()), Commit("rev0"));
  EXPECT_EQ(cache.checkouts(), 2);
  EXPECT_EQ(WorktreeCount(fixture.repo()), 1);
}

TEST(RevisionCacheTest, ConcurrentRequestsForOneCommitComputeOnce) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  RevisionCache cache(repo, {fixture.bazel(), {}, {}}, 1);
  const std::string commit = Commit("rev1");
  std::vector<std::shared_ptr<const RevisionHashes>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = cache.Hashes(commit); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.computations(), 1);
  for (const auto& result : results) EXPECT_EQ(result, results[0]);
  EXPECT_EQ(results[0]->hashes.size(), 195u);  // 200 targets less 5 package groups

  EXPECT_NE(cache.Hashes(Commit("rev0"))->hashes, results[0]->hashes);
  EXPECT_EQ(cache.Hashes(commit), results[0]);
  EXPECT_EQ(cache.computations(), 2);
}

// Two commits asked for at once are checked out and hashed one after the other (the clone is
// shared), and each gets its own commit's hashes.
TEST(RevisionCacheTest, CommitsAskedForAtOnceTakeTurnsInTheClone) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  RevisionCache alone(repo, {fixture.bazel(), {}, {}}, 1);
  std::map<std::string, HashEntries> expected;
  for (const char* tag : {"rev0", "rev1", "rev2"}) expected[tag] = alone.Hashes(Commit(tag))->hashes;
  RevisionCache cache(repo, {fixture.bazel(), {}, {}}, 1);
  std::map<std::string, std::shared_ptr<const RevisionHashes>> got;
  std::mutex mutex;
  std::vector<std::thread> threads;
  for (const char* tag : {"rev0", "rev1", "rev2", "rev0", "rev2"}) {
    threads.emplace_back([&, tag] {
      auto hashes = cache.Hashes(Commit(tag));
      std::lock_guard<std::mutex> lock(mutex);
      got[tag] = hashes;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const char* tag : {"rev0", "rev1", "rev2"}) EXPECT_EQ(got[tag]->hashes, expected[tag]) << tag;
  EXPECT_EQ(cache.checkouts(), 3);
}

TEST(RevisionCacheTest, FailuresReachTheCallerAndAreNotCached) {
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
  try {
    cache.Hashes("0000000000000000000000000000000000000000");
    FAIL() << "expected RefDiffError";
  } catch (const RefDiffError& error) {
    EXPECT_STREQ(error.what(),
                 "git -c gc.auto=0 checkout --force 0000000000000000000000000000000000000000 failed (exit 128)");
  }
}

// --cacheDir: a commit hashed once is read back from <dir>/<commit>.<config>.json by a later
// server; one started with other options (--trackDeps) does not read it.
TEST(RevisionCacheTest, TheCacheDirectoryOutlivesTheServer) {
  const auto& fixture = SharedGitFixture();
  GitRepo repo = Repo();
  ScratchDir dir;
  std::shared_ptr<const RevisionHashes> first;
  RevisionCacheOptions options{fixture.bazel(), {}, dir.path()};
  {
    RevisionCache cache(repo, options, 1);
    first = cache.Hashes(Commit("rev1"));
    EXPECT_EQ(cache.checkouts(), 1);
  }
  const std::string name = CacheFileName(Commit("rev1"), options);
  EXPECT_EQ(name.size(), 40 + 1 + 12 + 5);
  EXPECT_TRUE(name.ends_with(".json"));
  // Upstream's shape: the typed hashes alone.
  nlohmann::json stored = nlohmann::json::parse(ReadFile(dir.path() / name));
  EXPECT_EQ(stored.size(), 195u);
  RevisionCacheOptions broken = options;
  broken.bazel = "/bin/false";  // a bazel that cannot hash
  RevisionCache restarted(repo, broken, 1);
  EXPECT_EQ(restarted.Hashes(Commit("rev1"))->hashes, first->hashes);
  EXPECT_EQ(restarted.checkouts(), 0);
  EXPECT_THROW(restarted.Hashes(Commit("rev0")), RefDiffError);

  RevisionCacheOptions with_deps = options;
  with_deps.track_deps = true;
  EXPECT_NE(CacheFileName(Commit("rev1"), with_deps), name);
  std::shared_ptr<const RevisionHashes> tracked;
  {
    RevisionCache cache(repo, with_deps, 1);
    tracked = cache.Hashes(Commit("rev1"));
    EXPECT_EQ(cache.checkouts(), 1);  // the entry without edges is not read
  }
  EXPECT_EQ(tracked->hashes, first->hashes);
  EXPECT_FALSE(tracked->dep_edges.empty());
  stored = nlohmann::json::parse(ReadFile(dir.path() / CacheFileName(Commit("rev1"), with_deps)));
  EXPECT_EQ(stored["hashes"].size(), 195u);
  EXPECT_EQ(stored["metadata"]["depEdges"].size(), tracked->dep_edges.size());
  with_deps.bazel = "/bin/false";
  RevisionCache read_back(repo, with_deps, 1);
  EXPECT_EQ(read_back.Hashes(Commit("rev1"))->dep_edges, tracked->dep_edges);
}

TEST(GitRepoTest, FetchesAndChecksOutAsUpstream) {
  const auto& fixture = SharedGitFixture();
  ScratchDir scratch;
  // An origin the test can move, and a clone of it.
  std::filesystem::path origin = scratch.path() / "origin", clone = scratch.path() / "clone";
  Git(scratch.path(), {"clone", "--quiet", "--shared", fixture.repo().string(), origin.string()});
  // Not --shared: what origin gains later must reach the clone only by a fetch.
  Git(scratch.path(), {"clone", "--quiet", origin.string(), clone.string()});
  Git(origin, {"branch", "landed", "rev1"});
  // Reachable from no branch: only a fetch by name brings it.
  Git(origin, {"update-ref", "refs/pull/1/head",
               Git(origin, {"commit-tree", "-p", "rev2", "-m", "pr", "rev1^{tree}"}).substr(0, 40)});
  std::string pr_head = Git(origin, {"rev-parse", "refs/pull/1/head"}).substr(0, 40);
  GitRepo repo(FindOnPath("git"), clone);
  EXPECT_EQ(repo.ResolveCommit("origin/landed"), std::nullopt);
  repo.Fetch();
  EXPECT_EQ(repo.ResolveCommit("origin/landed"), Commit("rev1"));
  EXPECT_EQ(repo.ResolveCommit(pr_head), std::nullopt);
  EXPECT_TRUE(repo.FetchRevision(pr_head));
  EXPECT_EQ(repo.ResolveCommit(pr_head), pr_head);
  EXPECT_FALSE(repo.FetchRevision("0000000000000000000000000000000000000001"));
  EXPECT_FALSE(repo.FetchRevision("--all"));

  repo.Checkout(Commit("rev0"));
  EXPECT_EQ(HeadOf(clone), Commit("rev0"));
  // A checkout killed half-way left its lock: cleared, and the checkout goes through.
  WriteFile(clone / ".git" / "index.lock", "");
  repo.Checkout(Commit("rev2"));
  EXPECT_EQ(HeadOf(clone), Commit("rev2"));
  EXPECT_FALSE(std::filesystem::exists(clone / ".git" / "index.lock"));

  Git(clone, {"remote", "set-url", "origin", (scratch.path() / "gone").string()});
  try {
    repo.Fetch();
    FAIL() << "expected RefDiffError";
  } catch (const RefDiffError& error) {
    // One remote, so git fetches it directly and exits as a failed fetch does.
    EXPECT_STREQ(error.what(), "git fetch --all --prune failed (exit 128)");
  }
}

}  // namespace
}  // namespace pe::refdiff
