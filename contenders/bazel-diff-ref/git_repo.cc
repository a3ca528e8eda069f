#include "git_repo.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>
#include <vector>

#include "error.h"
#include "subprocess.h"

namespace pe::refdiff {
namespace {

std::string TrimNewline(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::filesystem::path FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    std::size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    // An empty entry means the current directory, as execvp reads it.
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : std::string(dir)) / name;
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
  }
}

GitRepo::GitRepo(std::filesystem::path git, std::filesystem::path repo) : git_(std::move(git)), repo_(std::move(repo)) {
  std::error_code error;
  if (!std::filesystem::is_directory(repo_, error)) {
    throw RefDiffError("repository " + repo_.string() + " is not a directory");
  }
  ProcessResult result = RunProcess({{git_.string(), "rev-parse", "--git-dir"}, repo_, {}});
  if (result.exit_code != 0) {
    std::string detail = LastLine(result.stderr_text);
    throw RefDiffError(repo_.string() + " is not a git repository" + (detail.empty() ? "" : ": " + detail));
  }
}

std::optional<std::string> GitRepo::ResolveCommit(const std::string& rev) const {
  if (rev.empty() || rev.starts_with("-") || rev.find('\0') != std::string::npos) return std::nullopt;
  ProcessResult result =
      RunProcess({{git_.string(), "rev-parse", "--verify", "--quiet", rev + "^{commit}"}, repo_, {}});
  if (result.exit_code != 0) return std::nullopt;
  std::string commit = TrimNewline(result.stdout_text);
  if (commit.empty()) return std::nullopt;
  return commit;
}

void GitRepo::AddWorktree(const std::filesystem::path& dir, const std::string& commit) const {
  ProcessResult result =
      RunProcess({{git_.string(), "worktree", "add", "--quiet", "--detach", dir.string(), commit}, repo_, {}});
  if (result.exit_code != 0) {
    std::string detail = LastLine(result.stderr_text);
    throw RefDiffError("'git worktree add' of " + commit + " failed with exit code " +
                       std::to_string(result.exit_code) + (detail.empty() ? "" : ": " + detail));
  }
}

bool GitRepo::RemoveWorktree(const std::filesystem::path& dir) const {
  return RunProcess({{git_.string(), "worktree", "remove", "--force", dir.string()}, repo_, {}}).exit_code == 0;
}

void GitRepo::Prune() const { RunProcess({{git_.string(), "worktree", "prune"}, repo_, {}}); }

}  // namespace pe::refdiff
