// The hashes of each commit `serve` has been asked about, as upstream bazel-diff's serve keeps
// them (server/HashService.kt): on a miss the commit is checked out in the `-w` clone itself
// (`git -c gc.auto=0 checkout --force COMMIT`) and hashed there in-process, exactly as
// generate-hashes --includeTargetType would hash it; checkout and hashing take turns, one commit
// at a time, since every request shares the one clone. The result is kept in memory and in the
// cache directory as <cacheDir>/<commit>.<config>.json in upstream's cache shape (typed values;
// with --trackDeps {"hashes": ..., "metadata": {"depEdges": ...}}), so a restarted server finds it.
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bazel_client.h"
#include "dep_edges.h"
#include "git_repo.h"
#include "hash_json.h"

namespace pe::refdiff {

// One commit's hashes: label -> "<Type>#<transitive>~<direct>", sorted by label, as
// get-impacted-targets reads them from a hashes file written with --includeTargetType.
struct RevisionHashes {
  HashEntries hashes;
  DepEdgeMap dep_edges;                          // with --trackDeps only, as --depEdgesFile writes them
  std::optional<std::string> module_graph_json;  // on bzlmod
};

// What the routes need from a repository; tests put a fake in its place.
class RevisionSource {
 public:
  virtual ~RevisionSource() = default;
  // The commit `rev` names in the clone as it is, or nothing when it names none.
  virtual std::optional<std::string> ResolveCommit(const std::string& rev) = 0;
  // `git fetch --all --prune`. Throws RefDiffError when git fails.
  virtual void FetchAll() = 0;
  // Fetches `rev` by name from each remote until one has it; false when none did.
  virtual bool FetchRevision(const std::string& rev) = 0;
  // The commit's hashes. Throws RefDiffError when they cannot be computed.
  virtual std::shared_ptr<const RevisionHashes> Hashes(const std::string& commit) = 0;
};

// generate-hashes --includeTargetType in-process, without the file in between (and with
// --depEdgesFile's edges when `track_deps`). bazel.workspace is the working directory bazel runs in.
RevisionHashes HashWorkspace(const BazelOptions& bazel, int threads, bool track_deps);

struct RevisionCacheOptions {
  std::filesystem::path bazel;
  std::vector<std::string> startup_options;
  std::filesystem::path cache_dir;  // empty: memory only
  bool track_deps = false;          // --trackDeps: keep each commit's dependency edges too
};

// The cache directory's file name for `commit`: "<commit>.<config>.json", <config> twelve hex
// digits of a SHA-256 over the options that change what is stored (startup options, trackDeps and
// the cache format's version), as upstream mixes its flags into its keys: a server started with
// --trackDeps never reads an entry without edges.
std::string CacheFileName(const std::string& commit, const RevisionCacheOptions& options);

class RevisionCache : public RevisionSource {
 public:
  // `repo` is the clone checked out on a miss. `threads` is what hashing one commit may use.
  RevisionCache(const GitRepo& repo, RevisionCacheOptions options, int threads);
  RevisionCache(const RevisionCache&) = delete;
  RevisionCache& operator=(const RevisionCache&) = delete;

  std::optional<std::string> ResolveCommit(const std::string& rev) override;
  void FetchAll() override;
  bool FetchRevision(const std::string& rev) override;
  // The first request for a commit computes; requests for the same commit meanwhile wait for
  // that one result instead of computing again. A failure is not cached: it reaches every
  // request that waited for it, and the next request tries again.
  std::shared_ptr<const RevisionHashes> Hashes(const std::string& commit) override;

  // How many commits have been looked up in the cache directory or hashed (failures included):
  // lets tests see the memory cache work.
  int computations() const;
  // How many commits have been checked out and hashed (disk hits not).
  int checkouts() const;

 private:
  std::shared_ptr<const RevisionHashes> LoadOrCompute(const std::string& commit);
  std::shared_ptr<const RevisionHashes> Compute(const std::string& commit);

  const GitRepo& repo_;
  RevisionCacheOptions options_;
  int threads_;
  mutable std::mutex mutex_;
  // Held while the clone is checked out and hashed: one commit at a time, as upstream's
  // generationLock (fetches do not take it, as upstream's do not).
  std::mutex workspace_mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const RevisionHashes>>> hashes_;
  int computations_ = 0;
  int checkouts_ = 0;
};

}  // namespace pe::refdiff
