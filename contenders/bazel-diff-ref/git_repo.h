// The git repository `serve` answers about: resolving revision names to commits and checking a
// commit out into a directory of its own. Every git call is an argv (no shell), run in the
// repository.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

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

  // `git worktree add --detach DIR COMMIT`: DIR (which must not exist) holds the commit's files.
  void AddWorktree(const std::filesystem::path& dir, const std::string& commit) const;
  // `git worktree remove --force DIR`; false when git refused (the caller may delete DIR itself
  // and Prune later).
  bool RemoveWorktree(const std::filesystem::path& dir) const;
  // `git worktree prune`: forgets worktrees whose directories are gone.
  void Prune() const;

 private:
  std::filesystem::path git_;
  std::filesystem::path repo_;
};

}  // namespace pe::refdiff
