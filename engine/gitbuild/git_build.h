// Contenders built from git: `[contenders.baseline] git = "main"`. Each revision is checked
// out into its own worktree under the cache directory and built there with the spec's build
// argv; the user's checkout, index and HEAD are never touched. A worktree is reused while its
// commit and build argv are unchanged, its last build succeeded and its tracked files are as the
// commit has them; otherwise it is reset to the commit (every file) and built again. The build
// runs sandboxed (runner::Sandbox): it can write its worktree and a temporary directory, nothing else.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::gitbuild {

struct BuiltRevision {
  std::string commit;              // full object name the revision resolved to
  std::filesystem::path worktree;  // run the contender's argv relative to this
  bool reused = false;             // true: found built from an earlier run, nothing was run
  bool dirty = false;              // after the build, tracked files differ from the commit (git status)
};

// A git command failed: unknown revision, not a repository, worktree not creatable.
class GitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The build was interrupted (Ctrl-C, SIGTERM): the run stops as interrupted, not as failed.
class BuildInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The build argv failed. what() names the revision, the commit, how the build ended and
// ends with the last lines of its output; log_path() holds the whole of it.
class BuildError : public std::runtime_error {
 public:
  BuildError(const std::string& summary, const std::string& tail, std::filesystem::path log_path)
      : std::runtime_error(tail.empty() ? summary : summary + "\n" + tail),
        summary_(summary),
        tail_(tail),
        log_path_(std::move(log_path)) {}
  const std::filesystem::path& log_path() const { return log_path_; }
  // The first line alone, and the logs' last lines with their line breaks, so a report can
  // print the one as a message and the other as a block.
  const std::string& summary() const { return summary_; }
  const std::string& tail() const { return tail_; }

 private:
  std::string summary_;
  std::string tail_;
  std::filesystem::path log_path_;
};

// Resolves `revision` in `repo` (`git rev-parse --verify REV^{commit}`), makes or reuses
// the worktree cache_root/worktrees/<repo digest>/<commit> (`git worktree add --detach`,
// hooks disabled) and runs `build_argv` there (no shell unless the argv is one; empty: no
// build step), stdout to <commit>.build.log and stderr to <commit>.build.stderr.log beside
// the worktree. Every git and build command runs through `runner`. Throws GitError or
// BuildError.
BuiltRevision PrepareRevision(const std::filesystem::path& repo, const std::string& revision,
                              const std::vector<std::string>& build_argv, const std::filesystem::path& cache_root,
                              runner::ProcessRunner& runner);

// The worktree PrepareRevision checks `commit` out into, and its build marker beside it.
std::filesystem::path RevisionWorktree(const std::filesystem::path& repo, const std::string& commit,
                                       const std::filesystem::path& cache_root);

// Removes the worktree of `commit` (RevisionWorktree), git's record of it and its build
// marker, so the next PrepareRevision checks it out and builds it again; the build logs stay.
// A record whose folder is already gone is pruned. For callers that build many commits once each (bisect).
// `timeout_s` > 0 bounds each git command.
void RemoveRevision(const std::filesystem::path& repo, const std::string& commit,
                    const std::filesystem::path& cache_root, runner::ProcessRunner& runner, double timeout_s = 0);

// Names a repository's worktree folder: 16 hex digits of FNV-1a over its canonical path, so
// two checkouts of the same project never share worktrees.
std::string RepoDigest(const std::filesystem::path& canonical_repo);

}  // namespace pe::gitbuild
