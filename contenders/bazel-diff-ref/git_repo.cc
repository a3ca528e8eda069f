#include "git_repo.h"

#include <unistd.h>

#include <cstdio>
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

std::string GitRepo::Run(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{git_.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult result = RunProcess({argv, repo_, {}});
  if (result.exit_code != 0) {
    std::fputs(result.stderr_text.c_str(), stderr);  // git's own reason, for the server's log
    std::string joined;
    for (const std::string& arg : args) joined += (joined.empty() ? "" : " ") + arg;
    std::string out = TrimNewline(result.stdout_text);
    throw RefDiffError("git " + joined + " failed (exit " + std::to_string(result.exit_code) + ")" +
                       (out.empty() ? "" : ": " + out));
  }
  return result.stdout_text;
}

void GitRepo::Fetch() const { Run({"fetch", "--all", "--prune"}); }

bool GitRepo::FetchRevision(const std::string& rev) const {
  if (rev.empty() || rev.starts_with("-") || rev.find('\0') != std::string::npos) return false;
  std::vector<std::string> remotes;
  try {
    std::string listed = Run({"remote"});
    std::size_t begin = 0;
    while (begin < listed.size()) {
      std::size_t end = listed.find('\n', begin);
      if (end == std::string::npos) end = listed.size();
      std::string name = TrimNewline(listed.substr(begin, end - begin));
      if (!name.empty()) remotes.push_back(std::move(name));
      begin = end + 1;
    }
  } catch (const RefDiffError&) {
    return false;
  }
  for (const std::string& remote : remotes) {
    try {
      Run({"fetch", remote, rev});
      return true;
    } catch (const RefDiffError&) {
      // This remote cannot supply it; try the next.
    }
  }
  return false;
}

void GitRepo::Checkout(const std::string& rev) const {
  const std::vector<std::string> checkout{"-c", "gc.auto=0", "checkout", "--force", rev};
  try {
    Run(checkout);
  } catch (const RefDiffError&) {
    // A checkout killed half-way leaves index.lock behind, and every later checkout fails on it.
    // Checkouts take turns (RevisionCache), so a lock present now belongs to no live checkout.
    std::filesystem::path git_dir = ".git";
    try {
      std::string printed = TrimNewline(Run({"rev-parse", "--git-dir"}));
      if (!printed.empty()) git_dir = printed;
    } catch (const RefDiffError&) {
    }
    if (git_dir.is_relative()) git_dir = repo_ / git_dir;
    std::error_code error;
    if (!std::filesystem::remove(git_dir / "index.lock", error)) throw;
    std::fprintf(stderr, "bazel-diff-ref: cleared a stale git index.lock in %s; retrying the checkout of %s\n",
                 repo_.c_str(), rev.c_str());
    Run(checkout);
  }
}

}  // namespace pe::refdiff
