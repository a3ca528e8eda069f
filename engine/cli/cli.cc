#include "engine/cli/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "engine/cli/cli_docs.h"
#include "engine/cli/commands.h"
#include "engine/report/text.h"
#include "engine/runner/interrupt.h"
#include "engine/spec/spec.h"
#include "engine/spec/spec_error.h"
#include "engine/spec/suggest.h"

namespace pe::cli {

using model::ExitCode;

namespace {

// Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org).
bool UseColor() {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

// A whole number in [min, max], checked on the text before CLI11 converts it, so an overflowing
// value is this message too, never a wrapped int or CLI11's "not in range 0.000000 to 1.79e308".
CLI::Validator WholeNumber(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::size_t used = 0;
        long long n = 0;
        try {
          n = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || n < min || n > max) {
          return fmt::format("must be a whole number from {} to {}, not '{}'", min, max, text);
        }
        return {};
      },
      fmt::format("{}..{}", min, max), "WholeNumber");
}

// A number greater than 0 and at most max.
CLI::Validator PositiveUpTo(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        std::size_t used = 0;
        double x = 0;
        try {
          x = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !(x > 0) || !(x <= max)) {
          return fmt::format("must be a number greater than 0 and at most {}, not '{}'", max, text);
        }
        return {};
      },
      fmt::format("(0..{}]", max), "PositiveUpTo");
}

void AddSpecOptions(CLI::App* cmd, CommonOptions& o, bool spec_required = true) {
  CLI::Option* spec = cmd->add_option("spec", o.spec, "The spec file (TOML)");
  if (spec_required) spec->required();
  cmd->add_option("--contender", o.contenders, "Replace a contender's program: NAME=PROGRAM (repeatable)");
  cmd->add_option("--workload", o.workloads, "Only this workload (repeatable); startup always runs");
  cmd->add_option("--scale", o.scale, "Multiply fixture sizes by this factor")
      ->check(PositiveUpTo(spec::limits::kMaxScale));
  cmd->add_option("--cache-dir", o.cache_dir, "Fixture cache (default: $PERFENGINE_CACHE or ~/.cache/perfengine)");
}

// --unresolved=fail|pass|exit3 on every command that gates (docs/exit-codes.md).
void AddUnresolvedOption(CLI::App* cmd, std::string& policy) {
  cmd->add_option("--unresolved", policy,
                  "What a claim left unresolved exits with: exit3 (default: 3), fail (1) or pass (0); also "
                  "PERFENGINE_UNRESOLVED")
      ->check(CLI::IsMember({"exit3", "fail", "pass"}));
}

// Output that never arrived (a full disk, /dev/full) once left the exit at 0. Everything
// written to stdout is flushed here, and a failure of any write to it is exit 2 (130 stands).
// No errno is named: a flush mid-run may have failed first and its errno is long gone.
int CheckStdout(int code) {
  std::cout.flush();
  const bool stream_failed = !std::cout;
  const bool flush_failed = std::fflush(stdout) != 0;
  if (!stream_failed && !flush_failed && std::ferror(stdout) == 0) return code;
  std::cerr << "perfengine: standard output: write failed; the output is incomplete\n";
  return code == static_cast<int>(ExitCode::kInterrupted) ? code : static_cast<int>(ExitCode::kRunFailed);
}

int RunCommandLine(int argc, char** argv) {
  CLI::App app{
      "perfengine: declarative performance gates.\n"
      "Runs contenders on generated workloads, checks that they agree, times them in\n"
      "interleaved rounds and judges the figures against the spec's thresholds.\n"
      "Exit codes: 0 pass, 1 a threshold missed, 2 the run failed or bad input, 3 a claim unresolved, 130 "
      "interrupted.",
      "perfengine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("perfengine ") + PERFENGINE_VERSION);

  CommonOptions common;
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "Run a spec: parity, timed rounds, verdict");
  AddSpecOptions(run, common, false);  // or --quick
  run->add_option(
         "--quick", run_flags.quick,
         "Compare two commands without writing a spec: --quick 'CMD A' 'CMD B' (the spec perfengine init would write)")
      ->expected(2);
  run->add_option("--parity", run_flags.parity,
                  "With --quick: how outputs are compared (exact, sorted-lines, json, json-map, none: time only)");
  run->add_option("--rounds", run_flags.rounds, "Measured rounds (overrides [run] rounds)")
      ->check(WholeNumber(1, spec::limits::kMaxRounds));
  run->add_option("--max-rounds", run_flags.max_rounds,
                  "Add rounds while a gated check is unresolved, up to this many (overrides [run] max_rounds)")
      ->check(WholeNumber(1, spec::limits::kMaxRounds));
  AddUnresolvedOption(run, run_flags.unresolved);
  run->add_option("--warmup-rounds", run_flags.warmup_rounds, "Warm-up rounds, discarded")
      ->check(WholeNumber(0, spec::limits::kMaxWarmupRounds));
  run->add_option("--json", run_flags.json, "Write the full results file here (atomically)");
  run->add_option("--markdown", run_flags.markdown, "Write a Markdown report here, for a pull-request comment");
  run->add_option("--html", run_flags.html, "Write a self-contained HTML report with charts here");
  run->add_option("--csv", run_flags.csv, "Write the figures as CSV here: one row per workload and contender");
  run->add_flag("--skip-serve", run_flags.skip_serve, "Leave out serve workloads");
  run->add_option("--serve-requests", run_flags.serve_requests, "Requests per serve round (overrides the spec)")
      ->check(WholeNumber(1, spec::limits::kMaxRequestCount));
  run->add_option("--serve-concurrency", run_flags.serve_concurrency,
                  "Connections per serve round (overrides the spec)")
      ->check(WholeNumber(1, spec::limits::kMaxConcurrency));
  run->add_option("--shard", run_flags.shard,
                  "Run only shard K of N (e.g. 2/4): a fixed 1/N of the workloads, for a CI matrix; see merge");
  run->add_flag("--quiet,-q", run_flags.quiet,
                "No progress on stderr (by default: a line redrawn on a terminal, else a plain line every 10 s)");
  run->add_flag("--record", run_flags.record, "Record the run in the history database (see perfengine history)");
  run->add_option("--history", run_flags.history,
                  "The history database (default: $PERFENGINE_HISTORY or ~/.local/share/perfengine/history.sqlite)");
  run->add_flag(
      "--accept-regression", run_flags.accept_regression,
      "Accept a missed threshold: exit 0, reported as accepted (also PERFENGINE_ACCEPT_REGRESSION=1, true, yes or on; "
      "0, false, no, off or empty do not)");

  InitFlags init_flags;
  CLI::App* init = app.add_subcommand("init", "Write a starting spec from two commands: init 'CMD A' 'CMD B'");
  init->add_option("commands", init_flags.commands, "The baseline's command, then the candidate's (quote each)")
      ->required()
      ->expected(2);
  init->add_option("--out,-o", init_flags.out, "Where to write the spec (default: perfengine.toml)");
  init->add_option("--parity", init_flags.parity,
                   "How outputs are compared: exact (default), sorted-lines, json, json-map, none (time only)");
  init->add_flag("--force", init_flags.force, "Replace the file if it exists");

  CLI::App* validate = app.add_subcommand("validate", "Check a spec without running anything");
  AddSpecOptions(validate, common);
  bool strict = false;
  validate->add_flag("--strict", strict, "Exit 2 on a warning too (e.g. a spec that gates nothing)");

  CLI::App* list = app.add_subcommand("list", "List a spec's workloads and what each exercises");
  AddSpecOptions(list, common);

  std::string out_dir;
  CLI::App* generate = app.add_subcommand("generate", "Write a spec's fixtures to a directory for inspection");
  AddSpecOptions(generate, common);
  generate->add_option("--out", out_dir, "Directory to write the fixtures into")->required();

  ExplainFlags explain_flags;
  CLI::App* explain = app.add_subcommand("explain", "Show the working behind a results file's figures and verdict");
  explain->add_option("results", explain_flags.results, "A results file written by run --json")->required();
  explain->add_option("--workload", explain_flags.workloads, "Only this workload (repeatable)");

  CompareFlags compare_flags;
  CLI::App* compare = app.add_subcommand("compare", "Compare two saved runs of one spec (unpaired), with a verdict");
  compare->add_option("old", compare_flags.old_results, "The earlier results file")->required();
  compare->add_option("new", compare_flags.new_results, "The later results file; its thresholds apply")->required();
  AddUnresolvedOption(compare, compare_flags.unresolved);
  compare->add_flag("--allow-different-spec", compare_flags.allow_different_spec,
                    "Compare even when the two files come from different specs");

  MergeFlags merge_flags;
  CLI::App* merge =
      app.add_subcommand("merge", "Combine the results files of run --shard jobs into one result and verdict");
  merge->add_option("results", merge_flags.files, "One results file per shard (run --shard K/N --json ...)")
      ->required();
  merge->add_option("--spec", merge_flags.spec,
                    "Refuse shards not run from this spec, or whose thresholds or gate flags are not its own");
  AddUnresolvedOption(merge, merge_flags.unresolved);
  merge->add_option("--json", merge_flags.json, "Write the merged results file here (atomically)");
  merge->add_option("--markdown", merge_flags.markdown, "Write a Markdown report of the merged result here");
  merge->add_option("--html", merge_flags.html, "Write an HTML report of the merged result here");
  merge->add_flag(
      "--accept-regression", merge_flags.accept_regression,
      "Accept a missed threshold: exit 0, reported as accepted (also PERFENGINE_ACCEPT_REGRESSION=1, true, yes or on; "
      "0, false, no, off or empty do not)");

  HistoryFlags history_flags;
  CLI::App* history =
      app.add_subcommand("history", "Each workload's trend over the recorded runs of a spec, with change points");
  history->add_option("spec", history_flags.spec, "The spec file whose runs were recorded (run --record)")->required();
  history->add_option("--workload", history_flags.workloads, "Only this workload (repeatable)");
  history->add_option(
      "--figure", history_flags.figure,
      "The figure to trace: speedup (default), cpu_ratio, instructions_ratio, ... or CONTENDER.median_wall_s");
  history->add_option("--html", history_flags.html, "Also write the trends as a self-contained HTML page of charts");
  history->add_option(
      "--history", history_flags.history,
      "The history database (default: $PERFENGINE_HISTORY or ~/.local/share/perfengine/history.sqlite)");

  BisectFlags bisect_flags;
  CLI::App* bisect =
      app.add_subcommand("bisect", "Find the commit that missed the gate: git bisect run, the gate as its test");
  bisect->add_option("spec", common.spec, "A spec whose baseline and candidate are built from git")->required();
  bisect->add_option("--good", bisect_flags.good, "A revision that passes (the baseline is built from it)")->required();
  bisect->add_option("--bad", bisect_flags.bad, "A later revision that misses the gate")->required();
  bisect->add_option("--rounds", bisect_flags.rounds, "Measured rounds at each commit")->check(CLI::PositiveNumber);
  bisect->add_option("--contender", common.contenders, "Replace a contender's program: NAME=PROGRAM (repeatable)");
  bisect->add_option("--cache-dir", common.cache_dir,
                     "Worktrees, builds and each step's results (default: the fixture cache)");

  BisectStepFlags step_flags;
  CLI::App* step = app.add_subcommand("bisect-step", "One commit of a bisection; git bisect run calls it");
  step->group("");  // not listed: perfengine bisect runs it
  step->add_option("spec", common.spec)->required();
  step->add_option("--good-commit", step_flags.good_commit)->required();
  step->add_option("--state", step_flags.state)->required();
  step->add_option("--rounds", step_flags.rounds);
  step->add_option("--contender", common.contenders);
  step->add_option("--cache-dir", common.cache_dir);

  // Generated from the definitions above (cli_docs.h); not listed, the build and packagers use them.
  std::string shell;
  CLI::App* completion = app.add_subcommand("completion", "Print shell completion: completion bash|zsh");
  completion->group("");
  completion->add_option("shell", shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* man = app.add_subcommand("man", "Print the man page (roff)");
  man->group("");

  // CLI11 would say only "The following arguments were not expected"; name the command.
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> commands;  // offered; hidden ones (bisect-step) are still accepted
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      if (!sub->get_group().empty()) commands.push_back(sub->get_name());
    }
    if (!known) {
      std::cerr << fmt::format("perfengine: unknown command '{}'{}; the commands are {}\n", argv[1],
                               spec::DidYouMean(argv[1], commands), fmt::join(commands, ", "));
      return static_cast<int>(ExitCode::kRunFailed);
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::kRunFailed);
  }

  try {
    if (*run) {
      interrupt::InstallHandlers();
      return static_cast<int>(RunCommand(common, run_flags, UseColor()));
    }
    if (*validate) return static_cast<int>(ValidateCommand(common, strict));
    if (*init) return static_cast<int>(InitCommand(init_flags));
    if (*completion) {
      std::cout << (shell == "bash" ? BashCompletion(app) : ZshCompletion(app));
      return 0;
    }
    if (*man) {
      std::cout << ManPage(app, PERFENGINE_VERSION);
      return 0;
    }
    if (*list) return static_cast<int>(ListCommand(common));
    if (*generate) return static_cast<int>(GenerateCommand(common, out_dir));
    if (*explain) return static_cast<int>(ExplainCommand(explain_flags));
    if (*compare) return static_cast<int>(CompareCommand(compare_flags));
    if (*history) return static_cast<int>(HistoryCommand(history_flags));
    if (*bisect) {
      interrupt::InstallHandlers();
      return static_cast<int>(BisectCommand(common, bisect_flags));
    }
    if (*step) {
      interrupt::InstallHandlers();
      return BisectStepCommand(common, step_flags);
    }
    if (*merge) return static_cast<int>(MergeCommand(merge_flags, UseColor()));
  } catch (const spec::SpecError& e) {
    // Errors quote the spec, the environment and contenders' stderr: never raw to a terminal.
    std::cerr << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  } catch (const spec::UsageError& e) {
    std::cerr << "perfengine: " << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  } catch (const std::exception& e) {
    std::cerr << "perfengine: " << report::Printable(e.what()) << "\n";
    return static_cast<int>(ExitCode::kRunFailed);
  }
  return static_cast<int>(ExitCode::kRunFailed);
}

}  // namespace

int Run(int argc, char** argv) { return CheckStdout(RunCommandLine(argc, argv)); }

}  // namespace pe::cli
