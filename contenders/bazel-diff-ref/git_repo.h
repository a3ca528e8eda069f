// The git repository `serve` answers about, as upstream bazel-diff's serve uses its `-w` clone
// (server/GitClient.kt, ProcessGitClient): resolving revision names to commits, fetching, and
// checking a commit out in the clone itself. Every git call is an argv (no shell), run in the
// repository; when git fails, what it printed on stderr goes to ours.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pe::refdiff {

// The first executable `name` in $PATH's directories, or an empty path.
std::filesystem::path FindOnPath(const std::string& name);

class GitRepo {
 public:
  // `git` is the program's path (see FindOnPath). Throws RefDiffError when `repo` is not inside
  // a git work tree, with git's own last line.
  GitRepo(std::filesystem::path git, std::filesystem::path repo);

  const std::filesystem::path& repo() const { return repo_; }

  // `git rev-parse --verify --quiet REV^{commit}`: the full commit id, or nothing when `rev` names
  // no commit. Names starting with '-' are refused (nothing) so they are never read as options.
  std::optional<std::string> ResolveCommit(const std::string& rev) const;

  // `git fetch --all --prune`: upstream's fetch at start-up and before it gives up on a revision.
  // Throws RefDiffError in upstream's words: "git fetch --all --prune failed (exit N)", then
  // ": " and what git printed on stdout, if anything.
  void Fetch() const;
  // `git fetch REMOTE REV` for each remote `git remote` lists, until one succeeds (true); false
  // when none could supply it or `rev` starts with '-'. Never throws for a refusal.
  bool FetchRevision(const std::string& rev) const;
  // `git -c gc.auto=0 checkout --force REV` in the repository's own work tree. When it fails and
  // a `<git-dir>/index.lock` is left (a checkout killed half-way), the lock is removed and the
  // checkout tried once more, as upstream does. Throws RefDiffError worded as Fetch's.
  void Checkout(const std::string& rev) const;

 private:
  // Runs `git ARGS` in the repository; throws RefDiffError("git ARGS failed (exit N)[: stdout]").
  std::string Run(const std::vector<std::string>& args) const;

  std::filesystem::path git_;
  std::filesystem::path repo_;
};

}  // namespace pe::refdiff
