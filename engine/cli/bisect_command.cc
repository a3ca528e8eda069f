// `perfengine bisect` and the step `git bisect run` calls back (`perfengine bisect-step`, not
// listed in --help): engine/bisect/ does the work; this prints it.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "engine/bisect/bisect.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/gate/gate.h"
#include "engine/gitbuild/git.h"
#include "engine/report/reporter.h"
#include "engine/report/text.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/programs.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::Check;
using model::ExitCode;
using model::RunResult;
using runner::MakeSystemProcessRunner;

namespace fs = std::filesystem;

namespace {

constexpr const char* kInterruptedInCleanup = "perfengine: bisect: interrupted during the cleanup\n";

spec::Spec LoadBisectSpec(const CommonOptions& common) {
  spec::Spec spec = spec::ParseSpecFile(common.spec);
  for (const std::string& assignment : common.contenders) {
    // Every step replaces both git revisions: NAME=git:REV would be overwritten unseen.
    const std::size_t eq = assignment.find('=');
    if (eq != std::string::npos && assignment.compare(eq + 1, 4, "git:") == 0) {
      throw spec::UsageError(fmt::format(
          "--contender {}: bisect builds the baseline from --good and the candidate from each commit it tests; "
          "give the revisions as --good and --bad",
          assignment));
    }
    spec::ApplyContenderOverride(spec, assignment);
  }
  return spec;
}

bisect::Options BisectOptions(const CommonOptions& common, const BisectFlags& flags) {
  bisect::Options o;
  o.good = flags.good;
  o.bad = flags.bad;
  o.cache_root = common.cache_dir;
  o.rounds = flags.rounds;
  o.self = fs::read_symlink("/proc/self/exe");
  o.spec_path = fs::absolute(common.spec);
  return o;
}

std::string StatusText(const bisect::Step& s) {
  switch (s.status) {
    case 0:
      return "good";
    case 1: {
      std::string text = "bad";
      for (const Check& c : s.missed) text += fmt::format("; {}", gate::CheckLine(c));
      return text;
    }
    case 125:
      return "skipped: could not be built or measured";
    default:
      return fmt::format("stopped the bisection (status {})", s.status);
  }
}

}  // namespace

ExitCode BisectCommand(const CommonOptions& common, const BisectFlags& flags) {
  const spec::Spec spec = LoadBisectSpec(common);
  auto runner = MakeSystemProcessRunner();
  bisect::Outcome outcome;
  try {
    outcome = bisect::Bisect(spec, BisectOptions(common, flags), *runner);
  } catch (const bisect::Interrupted& e) {
    std::cerr << "perfengine: " << e.what() << "\n";
    return ExitCode::kInterrupted;
  } catch (const std::exception& e) {
    // A Ctrl-C during the cleanup after the search failed: the failure is said, 130 stands.
    if (!interrupt::Interrupted()) throw;
    std::cerr << "perfengine: " << report::Printable(e.what()) << "\n" << kInterruptedInCleanup;
    return ExitCode::kInterrupted;
  }
  std::cout << fmt::format("bisect: {} commits measured, baseline built from --good {}\n", outcome.steps.size(),
                           flags.good);
  for (const bisect::Step& s : outcome.steps) {
    std::cout << fmt::format("  {}  {}\n", s.commit.substr(0, 12), StatusText(s));
  }
  std::cout << fmt::format("\nfirst bad commit: {} {}\n", outcome.first_bad, outcome.subject);
  for (const Check& c : outcome.missed) std::cout << "  " << gate::CheckLine(c) << "\n";
  std::cout << fmt::format("each step's results file: {}/<commit>.json\n", outcome.state.string());
  // The search finished but a Ctrl-C came during the cleanup (which it let finish): the result
  // above is whole, and the run still says it was interrupted.
  if (interrupt::Interrupted()) {
    std::cout << std::flush;
    std::cerr << kInterruptedInCleanup;
    return ExitCode::kInterrupted;
  }
  return ExitCode::kPass;
}

int BisectStepCommand(const CommonOptions& common, const BisectStepFlags& flags) {
  auto runner = MakeSystemProcessRunner();
  // `git bisect start --no-checkout` names the commit to test in BISECT_HEAD; this runs in the
  // bisection's own worktree.
  const gitbuild::GitResult head =
      gitbuild::RunGit(*runner, fs::current_path(), {"rev-parse", "--verify", "BISECT_HEAD"}, flags.state);
  if (!head.outcome.ok()) {
    std::cerr << "perfengine bisect-step: no BISECT_HEAD here: " << head.err << "\n";
    return 128;  // git bisect run stops on a status above 127
  }
  BisectFlags bisect_flags;
  bisect_flags.rounds = flags.rounds;
  const spec::Spec spec = LoadBisectSpec(common);
  const RunResult result =
      bisect::RunStep(spec, flags.good_commit, head.out, BisectOptions(common, bisect_flags), flags.state, *runner);
  std::cout << report::Render("terminal", result);
  const int status = bisect::StepStatus(result);
  std::cout << fmt::format("bisect-step {} {}\n", head.out, status) << std::flush;
  return status;
}

Subcommand AddBisect(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<BisectFlags>();
  CLI::App* bisect =
      app.add_subcommand("bisect", "Find the commit that missed the gate: git bisect run, the gate as its test");
  bisect->add_option("spec", common->spec, "A spec whose baseline and candidate are built from git")->required();
  bisect->add_option("--good", flags->good, "A revision that passes (the baseline is built from it)")->required();
  bisect->add_option("--bad", flags->bad, "A later revision that misses the gate")->required();
  bisect->add_option("--rounds", flags->rounds, "Measured rounds at each commit")->check(CLI::PositiveNumber);
  bisect->add_option("--contender", common->contenders, "Replace a contender's program: NAME=PROGRAM (repeatable)");
  bisect->add_option("--cache-dir", common->cache_dir,
                     "Worktrees, builds and each step's results (default: the fixture cache)");
  return {bisect, [=] { return static_cast<int>(BisectCommand(*common, *flags)); }, true};
}

Subcommand AddBisectStep(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<BisectStepFlags>();
  CLI::App* step = app.add_subcommand("bisect-step", "One commit of a bisection; git bisect run calls it");
  step->group("");  // not listed: perfengine bisect runs it
  step->add_option("spec", common->spec)->required();
  step->add_option("--good-commit", flags->good_commit)->required();
  step->add_option("--state", flags->state)->required();
  step->add_option("--rounds", flags->rounds);
  step->add_option("--contender", common->contenders);
  step->add_option("--cache-dir", common->cache_dir);
  return {step, [=] { return BisectStepCommand(*common, *flags); }, true};
}

}  // namespace pe::cli
