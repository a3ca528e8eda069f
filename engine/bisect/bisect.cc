#include "engine/bisect/bisect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/base/error.h"
#include "engine/gate/gate.h"
#include "engine/gitbuild/git.h"
#include "engine/gitbuild/git_build.h"
#include "engine/measure/scratch_dir.h"
#include "engine/model/json.h"
#include "engine/report/reporter.h"
#include "engine/run/experiment.h"
#include "engine/runner/file_tail.h"
#include "engine/runner/interrupt.h"
#include "generators/fixture_cache.h"

namespace pe::bisect {

using model::Check;
using model::ExitCode;
using model::Failure;
using model::ReadResultsFile;
using model::RunResult;
using model::WorkloadResult;
using runner::ProcessRunner;

namespace fs = std::filesystem;

namespace {

std::string Short(const std::string& commit) { return commit.substr(0, 12); }

std::vector<Check> Missed(const RunResult& r) {
  std::vector<Check> out;
  for (const Check& c : r.verdict.checks) {
    if (!c.passed && !c.skipped) out.push_back(c);
  }
  return out;
}

std::string Lines(const RunResult& r) {
  std::string text;
  for (const std::string& line : r.verdict.lines) text += "\n  " + line;
  return text;
}

// Each command of the cleanup after Ctrl-C is bounded: the user is waiting for the prompt.
constexpr double kCleanupTimeoutS = 60;

fs::path CacheOf(const Options& options) {
  return options.cache_root.empty() ? gen::DefaultCacheRoot() : options.cache_root;
}

const spec::Contender& Named(const spec::Spec& spec, const std::string& name) {
  for (const spec::Contender& c : spec.contenders) {
    if (c.name == name) return c;
  }
  throw base::UsageError("bisect: no contender '" + name + "'");  // AtCommits checked both exist
}

bool WasInterrupted(const RunResult& r) { return r.verdict.exit == ExitCode::kInterrupted || interrupt::Interrupted(); }

// Why the first measurement (the candidate at --bad, the baseline at --good) failed, blaming
// the revision whose contender failed: a baseline that does not build is --good's fault.
std::string CannotMeasure(const RunResult& r, const Options& options, const std::string& good, const std::string& bad) {
  bool baseline_failed = false;
  auto look = [&](const Failure& f) { baseline_failed = baseline_failed || f.contender == r.baseline; };
  for (const Failure& f : r.failures) look(f);
  for (const WorkloadResult& w : r.workloads) {
    for (const Failure& f : w.failures) look(f);
  }
  if (baseline_failed) {
    return fmt::format("bisect: --good {} ({}), which the baseline is built from, could not be measured:{}",
                       options.good, Short(good), Lines(r));
  }
  return fmt::format("bisect: --bad {} ({}) could not be measured:{}", options.bad, Short(bad), Lines(r));
}

class Git {
 public:
  Git(ProcessRunner& runner, fs::path scratch) : runner_(runner), scratch_(std::move(scratch)) {}
  // The command's stdout; throws base::UsageError with its stderr when it fails.
  std::string operator()(const fs::path& dir, const std::vector<std::string>& args) {
    const gitbuild::GitResult r = gitbuild::RunGit(runner_, dir, args, scratch_);
    if (r.outcome.status == pe::runner::Outcome::Status::kInterrupted) throw Interrupted("bisect: interrupted");
    if (!r.outcome.ok()) {
      throw base::UsageError(fmt::format("git {} failed: {}", fmt::join(args, " "), r.err.empty() ? r.out : r.err));
    }
    return r.out;
  }

 private:
  ProcessRunner& runner_;
  fs::path scratch_;
};

// Leaves the user's repository as Bisect() found it, however Bisect() ends: a result, an
// error or Ctrl-C. Resets the bisection (BISECT_*, refs/bisect/*), removes its worktree and
// every worktree of perfengine's registered since it started. After an interrupt the runner
// refuses to start anything, so this runs in an interrupt::CleanupWindow, each command bounded.
class Cleanup {
 public:
  Cleanup(ProcessRunner& runner, fs::path repo, fs::path cache, fs::path scratch)
      : runner_(runner), repo_(std::move(repo)), cache_(std::move(cache)), scratch_(std::move(scratch)) {
    before_ = gitbuild::ListWorktrees(runner_, repo_, scratch_);
  }
  // From here on there is a bisection to reset in `worktree`.
  void Bisecting(fs::path worktree) { worktree_ = std::move(worktree); }
  ~Cleanup() {
    interrupt::CleanupWindow window;
    try {
      if (!worktree_.empty()) {
        gitbuild::RunGit(runner_, worktree_, {"bisect", "reset"}, scratch_, kCleanupTimeoutS);
        gitbuild::RemoveWorktree(runner_, repo_, worktree_, scratch_, kCleanupTimeoutS);
      }
      for (const fs::path& w : gitbuild::ListWorktrees(runner_, repo_, scratch_, kCleanupTimeoutS)) {
        if (std::find(before_.begin(), before_.end(), w) != before_.end()) continue;
        const std::string commit = w.filename().string();
        // Only perfengine's own worktrees of commits (engine/gitbuild/), none of the user's.
        if (fs::weakly_canonical(gitbuild::RevisionWorktree(repo_, commit, cache_)) != fs::weakly_canonical(w)) {
          continue;
        }
        gitbuild::RemoveRevision(repo_, commit, cache_, runner_, kCleanupTimeoutS);
      }
    } catch (const std::exception&) {  // a destructor must not throw; what is left, git prune can take
    }
  }

 private:
  ProcessRunner& runner_;
  fs::path repo_, cache_, scratch_, worktree_;
  std::vector<fs::path> before_;
};

}  // namespace

int StepStatus(const RunResult& result) {
  switch (result.verdict.exit) {
    case ExitCode::kPass:
      return 0;
    case ExitCode::kThresholdMissed:
      return 1;
    case ExitCode::kInterrupted:
      return 128;
    case ExitCode::kUnresolved:
      return 125;  // this commit could not be judged either way: git bisect skips it
    case ExitCode::kRunFailed:
      break;
  }
  bool any = false, all_candidate = true;
  auto look = [&](const Failure& f) {
    any = true;
    all_candidate = all_candidate && f.contender == result.candidate && f.kind != Failure::Kind::kSpec &&
                    f.kind != Failure::Kind::kFixture && f.kind != Failure::Kind::kInterrupted;
  };
  for (const Failure& f : result.failures) look(f);
  for (const WorkloadResult& w : result.workloads) {
    for (const Failure& f : w.failures) look(f);
  }
  return any && all_candidate ? 125 : 128;
}

spec::Spec AtCommits(spec::Spec spec, const std::string& good_commit, const std::string& commit) {
  spec::Contender* baseline = nullptr;
  spec::Contender* candidate = nullptr;
  for (spec::Contender& c : spec.contenders) {
    if (c.name == spec.baseline) baseline = &c;
    if (c.name == spec.candidate) candidate = &c;
  }
  for (const spec::Contender* c : {baseline, candidate}) {
    if (c == nullptr || c->git.empty()) {
      throw base::UsageError(fmt::format(
          "bisect: {} must build its baseline and its candidate from git (docs/no-regression.md); '{}' has no git key",
          spec.path.string(), c == nullptr ? "?" : c->name));
    }
  }
  if (fs::weakly_canonical(baseline->repo) != fs::weakly_canonical(candidate->repo)) {
    throw base::UsageError(
        fmt::format("bisect: the baseline ({}) and the candidate ({}) come from different repositories",
                    baseline->repo.string(), candidate->repo.string()));
  }
  baseline->git = good_commit;
  candidate->git = commit;
  return spec;
}

RunResult RunStep(const spec::Spec& spec, const std::string& good_commit, const std::string& commit,
                  const Options& options, const fs::path& state, ProcessRunner& runner) {
  const spec::Spec at = AtCommits(spec, good_commit, commit);
  run::Options run_options;
  run_options.cache_root = options.cache_root;
  run_options.rounds = options.rounds;
  const fs::path repo = Named(at, at.candidate).repo;
  const fs::path cache = CacheOf(options);
  std::error_code ec;
  const bool cached = fs::exists(gitbuild::RevisionWorktree(repo, commit, cache), ec);
  RunResult result = run::RunExperiment(at, run_options, runner);
  report::WriteReport("json", result, state / (commit + ".json"));
  // The baseline's worktree serves every step; Bisect's cleanup removes it at the end.
  if (!cached && commit != good_commit && !interrupt::Interrupted()) {
    gitbuild::RemoveRevision(repo, commit, cache, runner);
  }
  return result;
}

Outcome Bisect(const spec::Spec& spec, const Options& options, ProcessRunner& runner) {
  const fs::path cache = CacheOf(options);
  const spec::Spec checked = AtCommits(spec, "", "");  // both built from git, in one repository
  const fs::path repo = Named(checked, checked.candidate).repo;
  fs::create_directories(cache / "bisect");
  const std::optional<fs::path> state = measure::MakePrivateDirectory(cache / "bisect", "run-");
  if (!state) throw std::runtime_error("cannot create a directory in " + (cache / "bisect").string());
  Outcome outcome;
  outcome.state = *state;
  Git git(runner, outcome.state);

  const auto resolve = [&](const std::string& rev, const char* flag) {
    try {
      return git(repo, {"rev-parse", "--verify", "--quiet", rev + "^{commit}"});
    } catch (const base::UsageError&) {
      throw base::UsageError(fmt::format("bisect: {} '{}' is not a commit of {}", flag, rev, repo.string()));
    }
  };
  const std::string good = resolve(options.good, "--good");
  const std::string bad = resolve(options.bad, "--bad");
  const std::string ancestor = git(repo, {"merge-base", good, bad});
  if (ancestor != good) {
    throw base::UsageError(fmt::format("bisect: --good {} is not an ancestor of --bad {}", options.good, options.bad));
  }

  Cleanup cleanup(runner, repo, cache, outcome.state);
  // The bad end first: if it passes there is no regression to find, and if it cannot be
  // measured neither can the search.
  const RunResult at_bad = RunStep(spec, good, bad, options, outcome.state, runner);
  if (WasInterrupted(at_bad)) throw Interrupted("bisect: interrupted");
  const int bad_status = StepStatus(at_bad);
  outcome.steps.push_back({bad, bad_status, Missed(at_bad)});
  if (bad_status == 0) {
    throw base::UsageError(
        fmt::format("bisect: --bad {} ({}) passes the gate against --good {}: no regression to look for", options.bad,
                    Short(bad), options.good));
  }
  if (bad_status != 1) throw base::UsageError(CannotMeasure(at_bad, options, good, bad));

  const fs::path worktree = outcome.state / "worktree";
  git(repo, {"worktree", "add", "--detach", "--no-checkout", worktree.string(), bad});
  cleanup.Bisecting(worktree);
  git(worktree, {"bisect", "start", "--no-checkout", bad, good});
  std::vector<std::string> step = {"bisect",
                                   "run",
                                   options.self.string(),
                                   "bisect-step",
                                   options.spec_path.string(),
                                   "--good-commit",
                                   good,
                                   "--state",
                                   outcome.state.string(),
                                   "--cache-dir",
                                   cache.string()};
  if (options.rounds) step.insert(step.end(), {"--rounds", std::to_string(*options.rounds)});
  const gitbuild::GitResult run = gitbuild::RunGit(runner, worktree, step, outcome.state);
  const std::string log = run.out + "\n" + run.err;
  const fs::path log_path = outcome.state / "bisect-run.log";
  std::ofstream(log_path) << log << "\n";
  if (run.outcome.status == pe::runner::Outcome::Status::kInterrupted || interrupt::Interrupted()) {
    throw Interrupted("bisect: interrupted");
  }
  if (!run.outcome.ok()) {
    throw base::UsageError(
        fmt::format("bisect: git bisect run stopped: a step failed in a way that skipping a commit "
                    "cannot help (the baseline's build, the spec); git's log and each step's report "
                    "are in {}",
                    log_path.string()));
  }

  outcome.first_bad = git(worktree, {"rev-parse", "--verify", "refs/bisect/bad"});
  if (log.find(outcome.first_bad + " is the first bad commit") == std::string::npos) {
    throw base::UsageError(
        fmt::format("bisect: git could not name one first bad commit (skipped commits in the way?); "
                    "its log is {}",
                    log_path.string()));
  }
  outcome.subject = git(repo, {"log", "-1", "--format=%s", outcome.first_bad});
  // Every commit git tested, in order: each step prints "bisect-step <commit> <status>".
  std::ifstream bisect_log_lines(outcome.state / "bisect-run.log");
  for (std::string line; std::getline(bisect_log_lines, line);) {
    const std::string tag = "bisect-step ";
    if (line.rfind(tag, 0) != 0) continue;
    std::istringstream fields(line.substr(tag.size()));
    Step s;
    fields >> s.commit >> s.status;
    if (s.commit.empty()) continue;
    if (fs::exists(outcome.state / (s.commit + ".json")))
      s.missed = Missed(ReadResultsFile(outcome.state / (s.commit + ".json")));
    outcome.steps.push_back(std::move(s));
  }
  const fs::path first_bad_file = outcome.state / (outcome.first_bad + ".json");
  if (fs::exists(first_bad_file)) outcome.missed = Missed(ReadResultsFile(first_bad_file));
  return outcome;
}

}  // namespace pe::bisect
