// The hashes of each commit `serve` has been asked about, computed once per commit and kept in
// memory and in the cache directory (<cacheDir>/<commit>.json, in generate-hashes' format, so a
// restarted server finds them): the commit is checked out into a worktree of its own, hashed
// in-process exactly as generate-hashes would hash it, and the worktree removed again.
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
#include "git_repo.h"
#include "hash_json.h"

namespace pe::refdiff {

// What /impacted_targets needs from a repository; tests put a fake in its place.
class RevisionSource {
 public:
  virtual ~RevisionSource() = default;
  // The commit `rev` names, or nothing when it names none.
  virtual std::optional<std::string> ResolveCommit(const std::string& rev) = 0;
  // The commit's hashes, keys sorted, as get-impacted-targets reads them from a hashes file.
  // Throws RefDiffError when they cannot be computed.
  virtual std::shared_ptr<const HashEntries> Hashes(const std::string& commit) = 0;
};

// generate-hashes in-process, without the file in between: label -> "<transitive>~<direct>".
// bazel.workspace is the working directory bazel runs in.
HashEntries HashWorkspace(const BazelOptions& bazel, int threads);

struct RevisionCacheOptions {
  std::filesystem::path bazel;
  std::vector<std::string> startup_options;
  std::filesystem::path cache_dir;  // empty: memory only
};

class RevisionCache : public RevisionSource {
 public:
  // Worktrees go in a fresh temporary directory, removed by the destructor. `threads` is what
  // hashing one commit may use.
  RevisionCache(const GitRepo& repo, RevisionCacheOptions options, int threads);
  ~RevisionCache() override;
  RevisionCache(const RevisionCache&) = delete;
  RevisionCache& operator=(const RevisionCache&) = delete;

  std::optional<std::string> ResolveCommit(const std::string& rev) override;
  // The first request for a commit computes; requests for the same commit meanwhile wait for
  // that one result instead of computing again. A failure is not cached: it reaches every
  // request that waited for it, and the next request tries again.
  std::shared_ptr<const HashEntries> Hashes(const std::string& commit) override;

  // How many commits have been hashed (failures included, disk hits not): lets tests see the
  // cache work.
  int computations() const;

 private:
  std::shared_ptr<const HashEntries> LoadOrCompute(const std::string& commit);
  std::shared_ptr<const HashEntries> Compute(const std::string& commit);

  const GitRepo& repo_;
  RevisionCacheOptions options_;
  int threads_;
  std::filesystem::path workdir_;
  mutable std::mutex mutex_;
  // git's worktree bookkeeping in one repository is not safe to change from two processes at
  // once: adds and removes for different commits take turns (hashing still runs in parallel).
  std::mutex git_mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const HashEntries>>> hashes_;
  int computations_ = 0;
  bool needs_prune_ = false;
};

}  // namespace pe::refdiff
