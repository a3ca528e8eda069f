#include "engine/gitbuild/git.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace pe::gitbuild {

using runner::Command;
using runner::ProcessRunner;
namespace {

std::string ReadAndRemove(const std::filesystem::path& path) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

GitResult RunGit(ProcessRunner& runner, const std::filesystem::path& dir, const std::vector<std::string>& args,
                 const std::filesystem::path& scratch_dir, double timeout_s) {
  static int sequence = 0;
  const std::string stem = "git-" + std::to_string(::getpid()) + "-" + std::to_string(++sequence);
  Command command;
  // A repository's hooks (post-checkout on worktree add) are its author's code; perfengine
  // runs only the spec's build argv.
  command.argv = {"git", "-c", "core.hooksPath=/dev/null", "-C", dir.string()};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.stdout_path = scratch_dir / (stem + ".out");
  command.stderr_path = scratch_dir / (stem + ".err");
  command.timeout_s = timeout_s;
  GitResult result;
  result.outcome = runner.Run(command);
  result.out = ReadAndRemove(command.stdout_path);
  result.err = ReadAndRemove(command.stderr_path);
  return result;
}

std::vector<std::filesystem::path> ListWorktrees(ProcessRunner& runner, const std::filesystem::path& repo,
                                                 const std::filesystem::path& scratch_dir, double timeout_s) {
  const GitResult listed = RunGit(runner, repo, {"worktree", "list", "--porcelain"}, scratch_dir, timeout_s);
  std::vector<std::filesystem::path> worktrees;
  if (!listed.outcome.ok()) return worktrees;
  std::istringstream lines(listed.out);
  const std::string tag = "worktree ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(tag, 0) == 0) worktrees.emplace_back(line.substr(tag.size()));
  }
  return worktrees;
}

void RemoveWorktree(ProcessRunner& runner, const std::filesystem::path& repo, const std::filesystem::path& worktree,
                    const std::filesystem::path& scratch_dir, double timeout_s) {
  const GitResult removed =
      RunGit(runner, repo, {"worktree", "remove", "--force", worktree.string()}, scratch_dir, timeout_s);
  if (removed.outcome.ok()) return;
  std::error_code ignored;
  std::filesystem::remove_all(worktree, ignored);
  RunGit(runner, repo, {"worktree", "prune"}, scratch_dir, timeout_s);
}

}  // namespace pe::gitbuild
