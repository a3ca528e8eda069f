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
                 const std::filesystem::path& scratch_dir) {
  static int sequence = 0;
  const std::string stem = "git-" + std::to_string(::getpid()) + "-" + std::to_string(++sequence);
  Command command;
  // A repository's hooks (post-checkout on worktree add) are its author's code; perfengine
  // runs only the spec's build argv.
  command.argv = {"git", "-c", "core.hooksPath=/dev/null", "-C", dir.string()};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.stdout_path = scratch_dir / (stem + ".out");
  command.stderr_path = scratch_dir / (stem + ".err");
  GitResult result;
  result.outcome = runner.Run(command);
  result.out = ReadAndRemove(command.stdout_path);
  result.err = ReadAndRemove(command.stderr_path);
  return result;
}

}  // namespace pe::gitbuild
