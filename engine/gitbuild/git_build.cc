#include "engine/gitbuild/git_build.h"

#include <fmt/core.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "engine/gitbuild/git.h"
#include "engine/gitbuild/log_tail.h"
#include "engine/runner/read_file.h"

namespace pe::gitbuild {

using runner::Command;
using runner::Outcome;
using runner::ProcessRunner;
using runner::ReadWholeFile;
namespace {

namespace fs = std::filesystem;

constexpr int kTailLines = 30;

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw GitError("cannot write " + path.string());
}

// What the marker file holds: a worktree built with another argv must be built again.
std::string MarkerText(const std::vector<std::string>& build_argv) {
  std::string text = "built with:\n";
  for (const std::string& arg : build_argv) text += arg + "\n";
  return text;
}

std::string Describe(const GitResult& result) {
  if (!result.err.empty()) return result.err;
  return result.outcome.error.empty() ? "failed" : result.outcome.error;
}

// True when `dir` is a worktree of its own (not a folder inside some other checkout) whose
// HEAD is `commit`.
bool IsWorktreeAt(const fs::path& dir, const std::string& commit, ProcessRunner& runner, const fs::path& scratch) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / ".git", ec)) return false;
  GitResult head = RunGit(runner, dir, {"rev-parse", "HEAD"}, scratch);
  return head.outcome.ok() && head.out == commit;
}

// True when tracked files in the worktree differ from its commit (a build that rewrote a
// source file): the contender then ran code that is not the commit it names.
bool TrackedFilesChanged(const fs::path& worktree, ProcessRunner& runner, const fs::path& scratch) {
  GitResult status = RunGit(runner, worktree, {"status", "--porcelain", "--untracked-files=no"}, scratch);
  return status.outcome.ok() && !status.out.empty();
}

// Puts every file of `worktree` back as `commit` has it: tracked files reset, untracked and
// ignored ones (an earlier build's output, or what it planted) removed.
void ResetToCommit(ProcessRunner& runner, const fs::path& worktree, const std::string& commit,
                   const fs::path& scratch) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"reset", "--hard", "--quiet", commit}, std::vector<std::string>{"clean", "-ffdxq"}}) {
    GitResult result = RunGit(runner, worktree, args, scratch);
    if (!result.outcome.ok()) {
      throw GitError(fmt::format("cannot reset {} to {}: git {} {}", worktree.string(), commit.substr(0, 12),
                                 args.front(), Describe(result)));
    }
  }
}

std::string HowItEnded(const Outcome& outcome) { return outcome.error.empty() ? "failed" : outcome.error; }

// The folder holding one repository's worktrees, their markers and build logs.
fs::path WorktreesOf(const fs::path& canonical_repo, const fs::path& cache_root) {
  return fs::absolute(cache_root) / "worktrees" / RepoDigest(canonical_repo);
}

fs::path MarkerOf(const fs::path& worktree) {
  return worktree.parent_path() / (worktree.filename().string() + ".built");
}

}  // namespace

fs::path RevisionWorktree(const fs::path& repo, const std::string& commit, const fs::path& cache_root) {
  return WorktreesOf(fs::weakly_canonical(repo), cache_root) / commit;
}

void RemoveRevision(const fs::path& repo, const std::string& commit, const fs::path& cache_root, ProcessRunner& runner,
                    double timeout_s) {
  const fs::path worktree = RevisionWorktree(repo, commit, cache_root);
  std::error_code ec;
  if (!fs::is_directory(worktree.parent_path(), ec)) return;  // this cache never held the repository
  fs::remove(MarkerOf(worktree), ec);
  RemoveWorktree(runner, fs::weakly_canonical(repo), worktree, worktree.parent_path(), timeout_s);
}

std::string RepoDigest(const fs::path& canonical_repo) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : canonical_repo.string()) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("{:016x}", hash);
}

BuiltRevision PrepareRevision(const fs::path& repo, const std::string& revision,
                              const std::vector<std::string>& build_argv, const fs::path& cache_root,
                              ProcessRunner& runner) {
  std::error_code ec;
  fs::path canonical_repo = fs::canonical(repo, ec);
  if (ec) throw GitError(fmt::format("repository {} not found: {}", repo.string(), ec.message()));
  const fs::path base = WorktreesOf(canonical_repo, cache_root);
  fs::create_directories(base, ec);
  if (ec) throw GitError(fmt::format("cannot create {}: {}", base.string(), ec.message()));

  GitResult resolved =
      RunGit(runner, canonical_repo, {"rev-parse", "--verify", "--quiet", revision + "^{commit}"}, base);
  if (!resolved.outcome.ok() || resolved.out.empty()) {
    throw GitError(fmt::format("unknown revision '{}' in {}{}", revision, canonical_repo.string(),
                               resolved.err.empty() ? "" : ": " + resolved.err));
  }
  BuiltRevision built;
  built.commit = resolved.out;
  built.worktree = base / built.commit;
  const fs::path marker = MarkerOf(built.worktree);
  const std::string marker_text = MarkerText(build_argv);

  if (IsWorktreeAt(built.worktree, built.commit, runner, base)) {
    // Reused only as the commit built with this argv left it: a tree whose tracked files an
    // earlier build edited is the commit no more, and is reset and built again below.
    if (fs::exists(marker, ec) && ReadWholeFile(marker) == marker_text &&
        !TrackedFilesChanged(built.worktree, runner, base)) {
      built.reused = true;
      return built;
    }
    // Checked out but not (or differently) built, or edited since: back to the commit, every
    // file, before it is built again.
    ResetToCommit(runner, built.worktree, built.commit, base);
  } else {
    // A half-made or foreign folder, or one whose registration git has lost: start over.
    fs::remove_all(built.worktree, ec);
    RunGit(runner, canonical_repo, {"worktree", "prune"}, base);
    GitResult added =
        RunGit(runner, canonical_repo, {"worktree", "add", "--detach", built.worktree.string(), built.commit}, base);
    if (!added.outcome.ok()) {
      throw GitError(fmt::format("cannot check out '{}' ({}) into {}: {}", revision, built.commit,
                                 built.worktree.string(), Describe(added)));
    }
  }
  fs::remove(marker, ec);
  if (build_argv.empty()) {
    WriteFile(marker, marker_text);
    built.dirty = TrackedFilesChanged(built.worktree, runner, base);
    return built;
  }

  // The build is the pull request's code: it may write its worktree and a temporary directory of
  // its own, nothing else, and everything it starts dies with it (runner::Sandbox).
  const fs::path temporary = base / (built.commit + ".tmp");
  fs::remove_all(temporary, ec);
  fs::create_directory(temporary, ec);
  if (ec) throw GitError(fmt::format("cannot create {}: {}", temporary.string(), ec.message()));
  Command build;
  build.argv = build_argv;
  build.cwd = built.worktree;
  build.sandbox.enabled = true;
  build.sandbox.writable = {built.worktree, temporary};
  build.env["TMPDIR"] = temporary.string();
  build.stdout_path = base / (built.commit + ".build.log");
  build.stderr_path = base / (built.commit + ".build.stderr.log");
  Outcome outcome = runner.Run(build);
  fs::remove_all(temporary, ec);
  if (outcome.status == Outcome::Status::kInterrupted) throw BuildInterrupted(outcome.error);
  if (!outcome.ok()) {
    const std::string summary = fmt::format("building revision '{}' ({}) failed: {}", revision,
                                            built.commit.substr(0, 12), HowItEnded(outcome));
    std::string tails;
    for (const fs::path& log : {build.stdout_path, build.stderr_path}) {
      std::string tail = LogTail(log, kTailLines);
      if (tail.empty()) continue;
      tails += fmt::format("{}--- last lines of {} ---\n{}", tails.empty() ? "" : "\n", log.string(), tail);
    }
    throw BuildError(summary, tails, build.stdout_path);
  }
  WriteFile(marker, marker_text);
  built.dirty = TrackedFilesChanged(built.worktree, runner, base);
  return built;
}

}  // namespace pe::gitbuild
