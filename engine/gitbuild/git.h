// Running git through a ProcessRunner: an argv, never a shell, with its output captured.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::gitbuild {

struct GitResult {
  runner::Outcome outcome;
  std::string out;  // stdout, trailing newline removed
  std::string err;  // stderr, trailing newline removed
};

// Runs `git -C dir args...` with hooks disabled, capturing its output in files under
// `scratch_dir` (which must exist). `timeout_s` > 0 bounds it (Command::timeout_s).
GitResult RunGit(runner::ProcessRunner& runner, const std::filesystem::path& dir, const std::vector<std::string>& args,
                 const std::filesystem::path& scratch_dir, double timeout_s = 0);

// The worktrees git has registered for `repo` (`git worktree list --porcelain`), the main
// one first, as git spells them; empty when git fails.
std::vector<std::filesystem::path> ListWorktrees(runner::ProcessRunner& runner, const std::filesystem::path& repo,
                                                 const std::filesystem::path& scratch_dir, double timeout_s = 0);

// Removes a worktree and git's record of it (`git worktree remove --force`); when git cannot
// (the folder is already gone or half made), deletes the folder and `git worktree prune`s.
// A record left behind would keep its commit checked out and list it in `git worktree list`.
void RemoveWorktree(runner::ProcessRunner& runner, const std::filesystem::path& repo,
                    const std::filesystem::path& worktree, const std::filesystem::path& scratch_dir,
                    double timeout_s = 0);

}  // namespace pe::gitbuild
