// `perfengine bisect SPEC --good REV --bad REV`: which commit made it slower? git is the engine:
// `git bisect run` walks the history, and at each commit perfengine runs the spec with the
// baseline built from GOOD and the candidate from that commit (engine/gitbuild/), the
// no-regression gate deciding good (exit 0) or bad (1). A commit that does not build, or whose
// candidate crashes or disagrees, is skipped (125); any other failure stops the bisection.
// docs/bisect.md describes it.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"

namespace pe::bisect {

// SIGINT, SIGTERM or SIGHUP stopped the bisection. By the time it is thrown the cleanup has
// run (Bisect); the command exits 130.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The exit status a step gives `git bisect run`: 0 the gate passed, 1 a threshold was missed,
// 125 the candidate could not be measured (failures all the candidate's: build, crash,
// timeout, parity), 128 anything else (the baseline failed, an interrupt), which makes git
// stop the bisection.
int StepStatus(const model::RunResult& result);

struct Options {
  std::string good;  // revisions as the user gave them
  std::string bad;
  std::filesystem::path cache_root;  // worktrees, builds and each step's results
  std::optional<int> rounds;         // --rounds for every step
  std::filesystem::path self;        // the perfengine binary each step runs
  std::filesystem::path spec_path;   // the spec each step reads
};

struct Step {
  std::string commit;
  int status = 0;                    // StepStatus
  std::vector<model::Check> missed;  // the checks that failed, for a bad commit
};

struct Outcome {
  std::string first_bad;             // full commit name
  std::string subject;               // its first line
  std::vector<model::Check> missed;  // its failing checks: the measured ratios
  std::vector<Step> steps;           // every commit measured, in order
  std::filesystem::path state;       // each step's results file, <commit>.json, and git's log
};

// The commit a spec's candidate is measured at for one step: the baseline is pinned to
// `good_commit`, the candidate to `commit`. Throws base::UsageError unless both the baseline
// and the candidate are built from git in one repository.
spec::Spec AtCommits(spec::Spec spec, const std::string& good_commit, const std::string& commit);

// One step: the spec at (good_commit, commit), its results written to state/<commit>.json.
// The candidate's worktree is removed afterwards unless it was there before the step (a run
// had cached it): each commit is measured once, and a bisection must not leave a worktree
// registered for every commit it tried.
model::RunResult RunStep(const spec::Spec& spec, const std::string& good_commit, const std::string& commit,
                         const Options& options, const std::filesystem::path& state, runner::ProcessRunner& runner);

// The whole bisection. Measures BAD first (it must miss the gate, or there is nothing to look
// for), then runs `git bisect start --no-checkout BAD GOOD` and `git bisect run` in a worktree of
// its own, so the user's checkout and any bisection of theirs are untouched. However it ends,
// even by Ctrl-C, it then resets that bisection and removes that worktree and every worktree
// the bisection registered (the baseline's, a step's that was interrupted). Throws
// base::UsageError with the reason when it cannot name a commit, Interrupted when a signal
// stopped it. A first signal during the cleanup lets the cleanup finish and stops nothing: the
// outcome (or error) stands, interrupt::Interrupted() is true after it, and the command exits 130.
Outcome Bisect(const spec::Spec& spec, const Options& options, runner::ProcessRunner& runner);

}  // namespace pe::bisect
