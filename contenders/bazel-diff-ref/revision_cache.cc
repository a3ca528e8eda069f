#include "revision_cache.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bzlmod_repos.h"
#include "error.h"
#include "query_stream.h"
#include "target_graph.h"
#include "target_hasher.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

std::filesystem::path MakeTempDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "bazel-diff-ref-serve-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw RefDiffError("cannot create a directory for worktrees (" + pattern + "): " + std::strerror(errno));
  }
  return pattern;
}

}  // namespace

HashEntries HashWorkspace(const BazelOptions& bazel, int threads) {
  QueryResult query = QueryAllTargets(bazel);
  HashOptions hashing{bazel.workspace, threads};
  TargetGraph graph(DecodeQueryResult(query, threads), threads);
  std::vector<HashedTarget> hashed = HashTargets(graph, hashing);
  // The graph is sorted by label, and these are the keys and values FormatHashesJson writes
  // without options, so the entries equal what ParseHashesJson would read back from that file.
  HashEntries entries;
  entries.reserve(hashed.size());
  for (const HashedTarget& target : hashed) {
    entries.emplace_back(target.label, ToHex(target.transitive) + "~" + ToHex(target.direct));
  }
  return entries;
}

RevisionCache::RevisionCache(const GitRepo& repo, RevisionCacheOptions options, int threads)
    : repo_(repo), options_(std::move(options)), threads_(threads), workdir_(MakeTempDirectory()) {}

RevisionCache::~RevisionCache() {
  std::error_code ignored;
  std::filesystem::remove_all(workdir_, ignored);
  try {
    if (needs_prune_) repo_.Prune();
  } catch (const RefDiffError&) {
    // git cannot run now; the stale entry names a directory that is gone, which git tolerates.
  }
}

std::optional<std::string> RevisionCache::ResolveCommit(const std::string& rev) { return repo_.ResolveCommit(rev); }

std::shared_ptr<const HashEntries> RevisionCache::Hashes(const std::string& commit) {
  using Result = std::shared_ptr<const HashEntries>;
  std::shared_future<Result> future;
  std::promise<Result> promise;
  bool computes = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hashes_.find(commit);
    if (it != hashes_.end()) {
      future = it->second;
    } else {
      future = promise.get_future().share();
      hashes_.emplace(commit, future);
      ++computations_;
      computes = true;
    }
  }
  if (computes) {
    try {
      promise.set_value(LoadOrCompute(commit));
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::lock_guard<std::mutex> lock(mutex_);
      hashes_.erase(commit);
    }
  }
  return future.get();
}

int RevisionCache::computations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computations_;
}

std::shared_ptr<const HashEntries> RevisionCache::LoadOrCompute(const std::string& commit) {
  if (options_.cache_dir.empty()) return Compute(commit);
  std::filesystem::path cached = options_.cache_dir / (commit + ".json");
  std::error_code error;
  if (std::filesystem::is_regular_file(cached, error)) {
    try {
      return std::make_shared<const HashEntries>(ParseHashesJson(ReadFile(cached), cached.string()));
    } catch (const RefDiffError&) {
      // A file cut short by a crash: compute again and replace it.
    }
  }
  std::shared_ptr<const HashEntries> hashes = Compute(commit);
  // Written beside its final name, then renamed: another server sharing the directory never
  // reads half a file.
  std::filesystem::path partial = cached;
  partial += ".partial-" + std::to_string(::getpid());
  std::string json = "{";
  for (std::size_t i = 0; i < hashes->size(); ++i) {
    json += i == 0 ? "\n  " : ",\n  ";
    AppendJsonString(json, (*hashes)[i].first);
    json += ": ";
    AppendJsonString(json, (*hashes)[i].second);
  }
  json += hashes->empty() ? "}\n" : "\n}\n";
  WriteFile(partial, json);
  std::filesystem::rename(partial, cached, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw RefDiffError("cannot write " + cached.string() + ": " + error.message());
  }
  return hashes;
}

std::shared_ptr<const HashEntries> RevisionCache::Compute(const std::string& commit) {
  // One directory per attempt: a failed attempt's leftovers never meet the retry.
  std::filesystem::path dir;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dir = workdir_ / (commit + "-" + std::to_string(computations_));
  }
  {
    std::lock_guard<std::mutex> git(git_mutex_);
    repo_.AddWorktree(dir, commit);
  }
  struct RemoveWorktree {
    RevisionCache* cache;
    const std::filesystem::path& dir;
    ~RemoveWorktree() {
      try {
        std::lock_guard<std::mutex> git(cache->git_mutex_);
        if (cache->repo_.RemoveWorktree(dir)) return;
      } catch (const RefDiffError&) {
      }
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
      std::lock_guard<std::mutex> lock(cache->mutex_);
      cache->needs_prune_ = true;
    }
  } remove{this, dir};
  BazelOptions bazel;
  bazel.bazel = options_.bazel;
  bazel.startup_options = options_.startup_options;
  bazel.workspace = dir;
  return std::make_shared<const HashEntries>(HashWorkspace(bazel, threads_));
}

}  // namespace pe::refdiff
